! esmio for Fortran: `use esmio`. Every function returns ESMIO_NOERR (0) or the C library's
! negative error code, like netCDF-Fortran's nf90_* functions; esmio_last_error() holds the
! message. Everything is in Fortran terms, as netCDF-Fortran has it:
!   - ids are 1-based (dimensions, variables, attribute numbers, records); ESMIO_GLOBAL is 0;
!   - dimensions are listed in Fortran order, fastest first: a variable the C API and ncdump
!     show as T(time, lev, lat, lon) is defined here with dimids [lon, lat, lev, time] and written
!     from an array A(nlon, nlat, nlev); start and count follow the same order;
!   - decompositions take PIO's compdof: 1-based Fortran linear indices into the global field
!     (nlon, nlat, nlev), 0 for a hole;
!   - names and paths lose their trailing blanks; text attribute values are written as given.
! docs/fortran.md has the picture of the dimension reversal and a table for PIO users.
module esmio
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm
  use esmio_c
  use esmio_constants
  use esmio_text
  implicit none
  private

  ! ---- handles: opaque; a closed file's, freed decomposition's or finalized instance's handle
  ! (or a copy of it) gives ESMIO_EBADID.
  type, public :: esmio_t
    type(c_ptr) :: ptr = c_null_ptr
  end type esmio_t
  type, public :: esmio_file_t
    type(c_ptr) :: ptr = c_null_ptr
  end type esmio_file_t
  type, public :: esmio_decomp_t
    type(c_ptr) :: ptr = c_null_ptr
  end type esmio_decomp_t
  public :: esmio_counter
  ! The ESMIO_* constants (fortran/esmio_constants.F90).
  public :: ESMIO_NOERR, ESMIO_EINVAL, ESMIO_ENOMEM, ESMIO_EBADID, ESMIO_ENOTVAR, ESMIO_ENOTDIM
  public :: ESMIO_EINDEFINE, ESMIO_ENOTINDEFINE, ESMIO_ERANGE, ESMIO_EBADTYPE, ESMIO_EDECOMP
  public :: ESMIO_ESHAPE, ESMIO_EBUFSIZE, ESMIO_ERECORD, ESMIO_EIO, ESMIO_ENOTNC, ESMIO_EBACKEND
  public :: ESMIO_EBADNAME, ESMIO_ENOTBUILT, ESMIO_ESETTING, ESMIO_EMPI, ESMIO_EPERM, ESMIO_EEXIST
  public :: ESMIO_ENAMEINUSE, ESMIO_EMAXDIMS, ESMIO_EUNLIMPOS, ESMIO_EMISMATCH, ESMIO_ECORRUPT
  public :: ESMIO_ENOSPC, ESMIO_ENOTATT, ESMIO_ECHECKSUM
  public :: ESMIO_BYTE, ESMIO_CHAR, ESMIO_SHORT, ESMIO_INT, ESMIO_FLOAT, ESMIO_DOUBLE, ESMIO_INT64
  public :: ESMIO_UBYTE, ESMIO_USHORT, ESMIO_UINT, ESMIO_UINT64
  public :: ESMIO_GLOBAL, ESMIO_UNLIMITED, ESMIO_MAX_DIMS, ESMIO_MAX_NAME, ESMIO_NOWRITE
  public :: ESMIO_WRITE, ESMIO_TRACE_BINS, ESMIO_ROLE_COMPUTE, ESMIO_ROLE_SERVER

  ! ---- the API
  public :: esmio_version, esmio_strerror, esmio_last_error
  public :: esmio_init, esmio_finalize, esmio_inq_settings, esmio_inq_iotasks
  public :: esmio_inq_iolayout
  public :: esmio_inq_role, esmio_inq_comm, esmio_stage_wait
  public :: esmio_create, esmio_open, esmio_def_var_chunking, esmio_def_var_compress
  public :: esmio_def_var_quantize, esmio_inq_file_settings, esmio_sync, esmio_close
  public :: esmio_def_dim, esmio_def_var, esmio_def_var_fill, esmio_put_att, esmio_enddef
  public :: esmio_redef
  public :: esmio_inq_dimid, esmio_inq_dimlen, esmio_inq_varid, esmio_inq_var, esmio_inq_nvars
  public :: esmio_inq_nrecords, esmio_inq_att, esmio_get_att, esmio_inq_ndims
  public :: esmio_inq_unlimdim, esmio_inq_dimname, esmio_inq_varname, esmio_inq_natts
  public :: esmio_inq_attname
  public :: esmio_put_vara, esmio_get_vara, esmio_put_var, esmio_get_var
  public :: esmio_decomp_create, esmio_decomp_create_block, esmio_decomp_load
  public :: esmio_decomp_save, esmio_decomp_inq, esmio_decomp_inq_compdof, esmio_decomp_free
  public :: esmio_write_darray, esmio_read_darray
  public :: esmio_trace_counter, esmio_trace_histogram, esmio_trace_reset, esmio_trace_write

  ! The communicator as `use mpi`'s integer or `use mpi_f08`'s type(MPI_Comm).
  interface esmio_inq_comm
    module procedure esmio_inq_comm_integer, esmio_inq_comm_f08
  end interface

  interface esmio_init
    module procedure esmio_init_integer, esmio_init_f08
  end interface
  ! compdof as integer(4) or integer(8) (PIO_OFFSET_KIND).
  interface esmio_decomp_create
    module procedure esmio_decomp_create_i4, esmio_decomp_create_i8
  end interface

  ! Calls that move values: real(4), real(8), integer(4), integer(8) of any rank, scalars
  ! included (fortran/esmio_typed.inc), and text for attributes.
  interface esmio_def_var_fill
    module procedure esmio_def_var_fill_r4, esmio_def_var_fill_r8, esmio_def_var_fill_i4, &
      esmio_def_var_fill_i8
  end interface
  interface esmio_put_att
    module procedure esmio_put_att_r4, esmio_put_att_r8, esmio_put_att_i4, esmio_put_att_i8, &
      esmio_put_att_text
  end interface
  interface esmio_get_att
    module procedure esmio_get_att_r4, esmio_get_att_r8, esmio_get_att_i4, esmio_get_att_i8, &
      esmio_get_att_text
  end interface
  interface esmio_put_vara
    module procedure esmio_put_vara_r4, esmio_put_vara_r8, esmio_put_vara_i4, esmio_put_vara_i8
  end interface
  interface esmio_get_vara
    module procedure esmio_get_vara_r4, esmio_get_vara_r8, esmio_get_vara_i4, esmio_get_vara_i8
  end interface
  interface esmio_put_var
    module procedure esmio_put_var_r4, esmio_put_var_r8, esmio_put_var_i4, esmio_put_var_i8
  end interface
  interface esmio_get_var
    module procedure esmio_get_var_r4, esmio_get_var_r8, esmio_get_var_i4, esmio_get_var_i8
  end interface
  interface esmio_write_darray
    module procedure esmio_write_darray_r4, esmio_write_darray_r8, esmio_write_darray_i4, &
      esmio_write_darray_i8
  end interface
  interface esmio_read_darray
    module procedure esmio_read_darray_r4, esmio_read_darray_r8, esmio_read_darray_i4, &
      esmio_read_darray_i8
  end interface
  interface address
    module procedure address_r4, address_r8, address_i4, address_i8
  end interface

  ! Longest settings text esmio_inq_settings can return here.
  integer, parameter :: settings_buffer = 65536

contains

  ! ---- dimension order ----------------------------------------------------------------------

  ! Fortran-order lengths, reversed into C order.
  pure function reversed_i8(values) result(c)
    integer, intent(in) :: values(:)
    integer(c_int64_t) :: c(size(values))
    c = int(values(size(values):1:-1), c_int64_t)
  end function

  ! start (1-based) and count of a vara call in Fortran order, as C's. Checks nothing itself: a
  ! start or count of the wrong length, or values too short for count, make the C call fail on
  ! every rank (a negative count, checked collectively) instead of failing here on some.
  subroutine box_to_c(file, varid, start, count, nvalues, cstart, ccount)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    integer(c_int64_t), intent(in) :: nvalues
    integer(c_int64_t), intent(out) :: cstart(ESMIO_MAX_DIMS), ccount(ESMIO_MAX_DIMS)
    integer(c_int) :: xtype, ndims, dimids(ESMIO_MAX_DIMS), ierr
    cstart = 0
    ccount = 0
    ndims = 0
    ierr = c_esmio_inq_var(file%ptr, varid - 1, xtype, ndims, dimids)
    if (ierr /= ESMIO_NOERR) return  ! the C call reports the bad handle or id
    if (size(start) /= ndims .or. size(count) /= ndims .or. ndims > ESMIO_MAX_DIMS) then
      ccount(1) = -1
      return
    end if
    cstart(1:ndims) = int(start(ndims:1:-1), c_int64_t) - 1
    ccount(1:ndims) = int(count(ndims:1:-1), c_int64_t)
    if (product(ccount(1:ndims)) > nvalues) ccount(1) = -1
  end subroutine

  ! A 1-based record, or record 1 when absent, as C's 0-based record.
  pure integer(c_int64_t) function record_to_c(record) result(crecord)
    integer, intent(in), optional :: record
    crecord = 0
    if (present(record)) crecord = int(record, c_int64_t) - 1
  end function

  ! ---- messages and version -----------------------------------------------------------------

  function esmio_version() result(version)
    character(len=:), allocatable :: version
    version = f_str(c_esmio_version())
  end function

  function esmio_strerror(code) result(message)
    integer, intent(in) :: code
    character(len=:), allocatable :: message
    message = f_str(c_esmio_strerror(int(code, c_int)))
  end function

  ! The message of the last error returned on this thread (empty if none).
  function esmio_last_error() result(message)
    character(len=:), allocatable :: message
    message = f_str(c_esmio_last_error())
  end function

  ! ---- instance -----------------------------------------------------------------------------

  ! Collective over comm (duplicated inside). settings: "key=value,..." or "" (README).
  integer function esmio_init_integer(comm, settings, io) result(ierr)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: settings
    type(esmio_t), intent(out) :: io
    ierr = c_esmio_init_f(int(comm, c_int), c_str(settings), io%ptr)
  end function

  integer function esmio_init_f08(comm, settings, io) result(ierr)
    type(MPI_Comm), intent(in) :: comm
    character(len=*), intent(in) :: settings
    type(esmio_t), intent(out) :: io
    ierr = c_esmio_init_f(int(comm%MPI_VAL, c_int), c_str(settings), io%ptr)
  end function

  ! Collective; every file and decomposition of io closed or freed first.
  integer function esmio_finalize(io) result(ierr)
    type(esmio_t), intent(inout) :: io
    ierr = c_esmio_finalize(io%ptr)
  end function

  ! Local. The effective settings "key=value,..." (valid settings for esmio_init).
  integer function esmio_inq_settings(io, settings) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=:), allocatable, intent(out) :: settings
    character(kind=c_char), allocatable :: buf(:)
    allocate (buf(settings_buffer))
    ierr = c_esmio_inq_settings(io%ptr, buf, int(size(buf), c_int64_t))
    settings = ""
    if (ierr == ESMIO_NOERR) settings = buffer_text(buf)
  end function

  ! Local. How the I/O tasks were chosen, one line.
  integer function esmio_inq_iolayout(io, text) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=:), allocatable, intent(out) :: text
    character(kind=c_char), allocatable :: buf(:)
    allocate (buf(settings_buffer))
    ierr = c_esmio_inq_iolayout(io%ptr, buf, int(size(buf), c_int64_t))
    text = ""
    if (ierr == ESMIO_NOERR) text = buffer_text(buf)
  end function

  ! Local.
  ! Local. ESMIO_ROLE_COMPUTE, or ESMIO_ROLE_SERVER on a rank that served as an I/O server
  ! (asynchronous mode): finalize its instance and skip the model.
  integer function esmio_inq_role(io, role) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(out) :: role
    integer(c_int) :: r
    ierr = c_esmio_inq_role(io%ptr, r)
    role = r
  end function

  ! Local. The communicator of the ranks that call esmio (the compute ranks in asynchronous
  ! mode; MPI_COMM_NULL on a server). Owned by esmio until esmio_finalize.
  integer function esmio_inq_comm_integer(io, comm) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(out) :: comm
    integer(c_int) :: c
    ierr = c_esmio_inq_comm_f(io%ptr, c)
    comm = c
  end function

  integer function esmio_inq_comm_f08(io, comm) result(ierr)
    type(esmio_t), intent(in) :: io
    type(MPI_Comm), intent(out) :: comm
    integer(c_int) :: c
    ierr = c_esmio_inq_comm_f(io%ptr, c)
    comm%MPI_VAL = c
  end function

  ! Collective. Waits until the staged file closed under path (stage_copy=background or
  ! finalize) is copied back, verified and renamed into place, and, with I/O servers and
  ! io_server_close=background, until the servers have closed it; its outcome.
  integer function esmio_stage_wait(io, path) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: path
    ierr = c_esmio_stage_wait(io%ptr, c_str(path))
  end function

  integer function esmio_inq_iotasks(io, num_iotasks, is_iotask) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(out), optional :: num_iotasks
    logical, intent(out), optional :: is_iotask
    integer(c_int) :: n, is
    ierr = c_esmio_inq_iotasks(io%ptr, n, is)
    if (ierr /= ESMIO_NOERR) return
    if (present(num_iotasks)) num_iotasks = n
    if (present(is_iotask)) is_iotask = is /= 0
  end function

  ! ---- files --------------------------------------------------------------------------------

  ! Collective. settings: backend, format, clobber, cache, ... (README: settings), or "".
  integer function esmio_create(io, path, settings, file) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: path, settings
    type(esmio_file_t), intent(out) :: file
    ierr = c_esmio_create(io%ptr, c_str(path), c_str(settings), file%ptr)
  end function

  ! Collective. mode: ESMIO_NOWRITE or ESMIO_WRITE.
  integer function esmio_open(io, path, mode, settings, file) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: path, settings
    integer, intent(in) :: mode
    type(esmio_file_t), intent(out) :: file
    ierr = c_esmio_open(io%ptr, c_str(path), int(mode, c_int), c_str(settings), file%ptr)
  end function

  ! Collective. chunks: one length per dimension, in Fortran order (record dimension last).
  integer function esmio_def_var_chunking(file, varid, chunks) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid, chunks(:)
    integer(c_int64_t) :: c(max(1, size(chunks)))
    c = 0
    if (size(chunks) > 0) c = reversed_i8(chunks)
    ierr = c_esmio_def_var_chunking(file%ptr, varid - 1, int(size(chunks), c_int), c)
  end function

  ! Collective. spec: "none" | "deflate[:1-9][:shuffle]" | "zstd[:LEVEL][:shuffle]".
  integer function esmio_def_var_compress(file, varid, spec) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: spec
    ierr = c_esmio_def_var_compress(file%ptr, varid - 1, c_str(spec))
  end function

  ! Collective. spec: "none" | "bitround:NSB" | "granularbr:NSD" | "information[:F]".
  integer function esmio_def_var_quantize(file, varid, spec) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: spec
    ierr = c_esmio_def_var_quantize(file%ptr, varid - 1, c_str(spec))
  end function

  ! Local. The file's effective settings, backend and format resolved.
  integer function esmio_inq_file_settings(file, settings) result(ierr)
    type(esmio_file_t), intent(in) :: file
    character(len=:), allocatable, intent(out) :: settings
    character(kind=c_char), allocatable :: buf(:)
    allocate (buf(settings_buffer))
    ierr = c_esmio_inq_file_settings(file%ptr, buf, int(size(buf), c_int64_t))
    settings = ""
    if (ierr == ESMIO_NOERR) settings = buffer_text(buf)
  end function

  ! Collective.
  integer function esmio_sync(file) result(ierr)
    type(esmio_file_t), intent(in) :: file
    ierr = c_esmio_sync(file%ptr)
  end function

  ! Collective. Flushes and closes; on an error the file is closed all the same (the message
  ! says what was lost), except ESMIO_EMISMATCH, when the handle stays valid.
  integer function esmio_close(file) result(ierr)
    type(esmio_file_t), intent(inout) :: file
    ierr = c_esmio_close(file%ptr)
  end function

  ! ---- definitions (collective) -------------------------------------------------------------

  ! len: the length, or ESMIO_UNLIMITED for the record dimension.
  integer function esmio_def_dim(file, name, len, dimid) result(ierr)
    type(esmio_file_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: len
    integer, intent(out) :: dimid
    integer(c_int) :: id
    ierr = c_esmio_def_dim(file%ptr, c_str(name), int(len, c_int64_t), id)
    dimid = id + 1
  end function

  ! dimids in Fortran order, the record dimension last; absent or empty for a scalar.
  integer function esmio_def_var(file, name, xtype, dimids, varid) result(ierr)
    type(esmio_file_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: xtype
    integer, intent(in), optional :: dimids(:)
    integer, intent(out) :: varid
    integer(c_int) :: cids(ESMIO_MAX_DIMS + 1), ndims, id
    ndims = 0
    cids = 0
    if (present(dimids)) then
      ! More than ESMIO_MAX_DIMS: C's ESMIO_EMAXDIMS on every rank, from the count alone.
      ndims = min(size(dimids), ESMIO_MAX_DIMS + 1)
      if (ndims <= ESMIO_MAX_DIMS) cids(1:ndims) = int(dimids(ndims:1:-1), c_int) - 1
    end if
    ierr = c_esmio_def_var(file%ptr, c_str(name), int(xtype, c_int), ndims, cids, id)
    varid = id + 1
  end function

  ! A text attribute: the characters of values as given (trim() them to drop trailing blanks).
  integer function esmio_put_att_text(file, varid, name, values) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    character(len=*), intent(in), target :: values
    type(c_ptr) :: ptr
    ptr = c_null_ptr
    if (len(values) > 0) ptr = c_loc(values)
    ierr = c_esmio_put_att(file%ptr, varid - 1, c_str(name), int(ESMIO_CHAR, c_int), &
                           int(len(values), c_int64_t), ptr)
  end function

  integer function esmio_enddef(file) result(ierr)
    type(esmio_file_t), intent(in) :: file
    ierr = c_esmio_enddef(file%ptr)
  end function

  integer function esmio_redef(file) result(ierr)
    type(esmio_file_t), intent(in) :: file
    ierr = c_esmio_redef(file%ptr)
  end function

  ! ---- inquiry: local, except attributes (collective) ---------------------------------------

  integer function esmio_inq_dimid(file, name, dimid) result(ierr)
    type(esmio_file_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(out) :: dimid
    integer(c_int) :: id
    id = -1
    ierr = c_esmio_inq_dimid(file%ptr, c_str(name), id)
    dimid = id + 1
  end function

  ! The length (of the record dimension: the records written so far).
  integer function esmio_inq_dimlen(file, dimid, len) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: dimid
    integer, intent(out) :: len
    integer(c_int64_t) :: n
    n = 0
    ierr = c_esmio_inq_dimlen(file%ptr, int(dimid, c_int) - 1, n)
    len = int(n)
  end function

  integer function esmio_inq_varid(file, name, varid) result(ierr)
    type(esmio_file_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    integer(c_int) :: id
    id = -1
    ierr = c_esmio_inq_varid(file%ptr, c_str(name), id)
    varid = id + 1
  end function

  ! dimids in Fortran order (room for ndims, at most ESMIO_MAX_DIMS).
  integer function esmio_inq_var(file, varid, xtype, ndims, dimids) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out), optional :: xtype, ndims
    integer, intent(out), optional :: dimids(:)
    integer(c_int) :: t, n, ids(ESMIO_MAX_DIMS)
    ierr = c_esmio_inq_var(file%ptr, varid - 1, t, n, ids)
    if (ierr /= ESMIO_NOERR) return
    if (present(xtype)) xtype = t
    if (present(ndims)) ndims = n
    if (present(dimids)) then
      if (size(dimids) < n) then
        ierr = ESMIO_EINVAL
        return
      end if
      dimids(1:n) = ids(n:1:-1) + 1
    end if
  end function

  integer function esmio_inq_nvars(file, nvars) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(out) :: nvars
    integer(c_int) :: n
    n = 0
    ierr = c_esmio_inq_nvars(file%ptr, n)
    nvars = n
  end function

  integer function esmio_inq_ndims(file, ndims) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(out) :: ndims
    integer(c_int) :: n
    n = 0
    ierr = c_esmio_inq_ndims(file%ptr, n)
    ndims = n
  end function

  ! The record dimension's id, 0 if the file has none.
  integer function esmio_inq_unlimdim(file, dimid) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(out) :: dimid
    integer(c_int) :: id
    id = -1
    ierr = c_esmio_inq_unlimdim(file%ptr, id)
    dimid = id + 1
  end function

  ! Records written so far.
  integer function esmio_inq_nrecords(file, nrecords) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(out) :: nrecords
    integer(c_int64_t) :: n
    n = 0
    ierr = c_esmio_inq_nrecords(file%ptr, n)
    nrecords = int(n)
  end function

  ! name: blank-padded; ESMIO_EINVAL if the name is longer than name.
  integer function esmio_inq_dimname(file, dimid, name) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: dimid
    character(len=*), intent(out) :: name
    character(kind=c_char) :: buf(ESMIO_MAX_NAME)
    name = ""
    ierr = c_esmio_inq_dimname(file%ptr, int(dimid, c_int) - 1, buf, int(size(buf), c_int64_t))
    if (ierr == ESMIO_NOERR) ierr = fit_name(buffer_text(buf), name)
  end function

  integer function esmio_inq_varname(file, varid, name) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(out) :: name
    character(kind=c_char) :: buf(ESMIO_MAX_NAME)
    name = ""
    ierr = c_esmio_inq_varname(file%ptr, varid - 1, buf, int(size(buf), c_int64_t))
    if (ierr == ESMIO_NOERR) ierr = fit_name(buffer_text(buf), name)
  end function

  ! Collective. Type and number of values (characters, for text) of an attribute.
  integer function esmio_inq_att(file, varid, name, xtype, len) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype, len
    integer(c_int) :: t
    integer(c_int64_t) :: n
    ierr = c_esmio_inq_att(file%ptr, varid - 1, c_str(name), t, n)
    if (ierr /= ESMIO_NOERR) return
    if (present(xtype)) xtype = t
    if (present(len)) len = int(n)
  end function

  ! Collective.
  integer function esmio_inq_natts(file, varid, natts) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: natts
    integer(c_int) :: n
    n = 0
    ierr = c_esmio_inq_natts(file%ptr, varid - 1, n)
    natts = n
  end function

  ! Collective. attnum from 1; ESMIO_EINVAL on every rank if name is too short on one.
  integer function esmio_inq_attname(file, varid, attnum, name) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid, attnum
    character(len=*), intent(out) :: name
    character(kind=c_char) :: buf(ESMIO_MAX_NAME)
    name = ""
    ierr = c_esmio_inq_attname(file%ptr, varid - 1, int(attnum, c_int) - 1, buf, &
                               int(min(len(name) + 1, size(buf)), c_int64_t))
    if (ierr == ESMIO_NOERR) name = buffer_text(buf)
  end function

  ! Collective. A text attribute into values, blank-padded; ESMIO_EINVAL (on every rank) if it
  ! is longer than values.
  integer function esmio_get_att_text(file, varid, name, values) result(ierr)
    type(esmio_file_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    character(len=*), intent(inout), target :: values
    integer(c_int) :: t
    integer(c_int64_t) :: n
    ierr = c_esmio_inq_att(file%ptr, varid - 1, c_str(name), t, n)
    if (ierr /= ESMIO_NOERR) return
    ! Longer than values: asking C for len(values) makes it refuse on every rank.
    n = min(n, int(len(values), c_int64_t))
    values = ""
    if (n == 0) then
      ierr = c_esmio_get_att(file%ptr, varid - 1, c_str(name), int(ESMIO_CHAR, c_int), n, &
                             c_null_ptr)
    else
      ierr = c_esmio_get_att(file%ptr, varid - 1, c_str(name), int(ESMIO_CHAR, c_int), n, &
                             c_loc(values))
    end if
  end function

  ! ---- decompositions (collective, except inquiry) -------------------------------------------

  ! compdof(i): the 1-based Fortran linear index into the global field dims (Fortran order) of
  ! the rank's i-th element in memory, 0 for a hole (PIO's convention).
  integer function esmio_decomp_create_i4(io, dims, compdof, decomp) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(in) :: dims(:)
    integer(4), intent(in) :: compdof(:)
    type(esmio_decomp_t), intent(out) :: decomp
    ierr = create_from_compdof(io, dims, int(compdof, c_int64_t), decomp)
  end function

  integer function esmio_decomp_create_i8(io, dims, compdof, decomp) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(in) :: dims(:)
    integer(8), intent(in) :: compdof(:)
    type(esmio_decomp_t), intent(out) :: decomp
    ierr = create_from_compdof(io, dims, int(compdof, c_int64_t), decomp)
  end function

  ! A Fortran linear index over (n1, n2, ...) equals the C-order offset over (..., n2, n1) plus
  ! one: the map needs no arithmetic beyond the shift and the hole marker.
  integer function create_from_compdof(io, dims, compdof, decomp) result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(in) :: dims(:)
    integer(c_int64_t), intent(in) :: compdof(:)
    type(esmio_decomp_t), intent(out) :: decomp
    integer(c_int64_t), allocatable :: offsets(:)
    integer(c_int64_t) :: cdims(max(1, size(dims)))
    allocate (offsets(max(1, size(compdof))))
    offsets = 0
    where (compdof == 0)
      offsets(1:size(compdof)) = -1
    elsewhere
      offsets(1:size(compdof)) = compdof - 1
    end where
    cdims = 0
    if (size(dims) > 0) cdims = reversed_i8(dims)
    ierr = c_esmio_decomp_create(io%ptr, int(size(dims), c_int), cdims, &
                                 int(size(compdof), c_int64_t), offsets, decomp%ptr)
  end function

  ! The rank holds the block start(d):start(d)+count(d)-1 (1-based, Fortran order) of the field
  ! dims. mem_order(i) is the field dimension that is the i-th (fastest first) dimension of the
  ! rank's array: a model holding A(lon, lev, lat) for a field (lon, lat, lev) passes [1, 3, 2].
  ! Absent: the array has the field's order.
  integer function esmio_decomp_create_block(io, dims, start, count, decomp, mem_order) &
      result(ierr)
    type(esmio_t), intent(in) :: io
    integer, intent(in) :: dims(:), start(:), count(:)
    type(esmio_decomp_t), intent(out) :: decomp
    integer, intent(in), optional :: mem_order(:)
    ! One more than ESMIO_MAX_DIMS: too many dimensions reach C as ESMIO_MAX_DIMS + 1.
    integer(c_int64_t), dimension(ESMIO_MAX_DIMS + 1) :: cdims, cstart, ccount
    integer(c_int) :: corder(ESMIO_MAX_DIMS + 1)
    integer :: n, i
    n = size(dims)
    cdims = 0
    cstart = 0
    ccount = 0
    ! A start, count or mem_order of another length than dims: a negative count, refused by C
    ! on every rank.
    if (n > ESMIO_MAX_DIMS) n = ESMIO_MAX_DIMS + 1
    if (n <= ESMIO_MAX_DIMS) then
      cdims(1:n) = reversed_i8(dims)
      if (size(start) == n .and. size(count) == n) then
        cstart(1:n) = reversed_i8(start) - 1
        ccount(1:n) = reversed_i8(count)
      else if (n > 0) then
        ccount(1) = -1
      end if
    end if
    ! C's mem_order lists memory dimensions slowest first by C field dimension: field
    ! dimension f (Fortran, 1-based) is C dimension n - f.
    do i = 1, size(corder)
      corder(i) = i - 1
    end do
    if (present(mem_order) .and. n <= ESMIO_MAX_DIMS) then
      if (size(mem_order) == n) then
        do i = 1, n
          corder(i) = int(n - mem_order(n + 1 - i), c_int)
        end do
      else if (n > 0) then
        ccount(1) = -1
      end if
    end if
    ierr = c_esmio_decomp_create_block(io%ptr, int(n, c_int), cdims, cstart, ccount, corder, &
                                       decomp%ptr)
  end function

  ! Collective. format: "pio" (PIO's text format), "esmio", "e3sm:D<k>".
  integer function esmio_decomp_load(io, path, format, decomp) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: path, format
    type(esmio_decomp_t), intent(out) :: decomp
    ierr = c_esmio_decomp_load(io%ptr, c_str(path), c_str(format), decomp%ptr)
  end function

  ! Collective. format: "pio" or "esmio".
  integer function esmio_decomp_save(decomp, path, format) result(ierr)
    type(esmio_decomp_t), intent(in) :: decomp
    character(len=*), intent(in) :: path, format
    ierr = c_esmio_decomp_save(decomp%ptr, c_str(path), c_str(format))
  end function

  ! Local. dims in Fortran order (room for ndims); nlocal: the rank's number of elements.
  integer function esmio_decomp_inq(decomp, ndims, dims, nlocal) result(ierr)
    type(esmio_decomp_t), intent(in) :: decomp
    integer, intent(out), optional :: ndims, nlocal
    integer, intent(out), optional :: dims(:)
    integer(c_int) :: n
    integer(c_int64_t) :: cdims(ESMIO_MAX_DIMS), nl
    ierr = c_esmio_decomp_inq(decomp%ptr, n, cdims, nl)
    if (ierr /= ESMIO_NOERR) return
    if (present(ndims)) ndims = n
    if (present(nlocal)) nlocal = int(nl)
    if (present(dims)) then
      if (size(dims) < n) then
        ierr = ESMIO_EINVAL
        return
      end if
      dims(1:n) = int(cdims(n:1:-1))
    end if
  end function

  ! Local. The rank's compdof (room for nlocal), 0 for holes.
  integer function esmio_decomp_inq_compdof(decomp, compdof) result(ierr)
    type(esmio_decomp_t), intent(in) :: decomp
    integer(8), intent(out) :: compdof(:)
    ierr = c_esmio_decomp_inq_offsets(decomp%ptr, compdof, int(size(compdof), c_int64_t))
    if (ierr /= ESMIO_NOERR) return
    where (compdof >= 0)
      compdof = compdof + 1
    elsewhere
      compdof = 0
    end where
  end function

  integer function esmio_decomp_free(decomp) result(ierr)
    type(esmio_decomp_t), intent(inout) :: decomp
    ierr = c_esmio_decomp_free(decomp%ptr)
  end function

  ! ---- trace (local) ------------------------------------------------------------------------

  ! This rank's totals of one counter (names: include/esmio.h, docs/fortran.md).
  integer function esmio_trace_counter(io, name, counter) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: name
    type(esmio_counter), intent(out) :: counter
    ierr = c_esmio_trace_counter(io%ptr, c_str(name), counter)
  end function

  ! bins(ESMIO_TRACE_BINS): bin b (from 1) counts backend requests of [2^(b-1), 2^b) bytes.
  integer function esmio_trace_histogram(io, bins) result(ierr)
    type(esmio_t), intent(in) :: io
    integer(8), intent(out) :: bins(ESMIO_TRACE_BINS)
    ierr = c_esmio_trace_histogram(io%ptr, bins)
  end function

  integer function esmio_trace_reset(io) result(ierr)
    type(esmio_t), intent(in) :: io
    ierr = c_esmio_trace_reset(io%ptr)
  end function

  ! Collective: the trace report (counters and timeline) written to path now.
  integer function esmio_trace_write(io, path) result(ierr)
    type(esmio_t), intent(in) :: io
    character(len=*), intent(in) :: path
    ierr = c_esmio_trace_write(io%ptr, c_str(path))
  end function

  ! ---- the typed calls ----------------------------------------------------------------------

#define FTYPE real(c_float)
#define MEMTYPE ESMIO_FLOAT
#define NAME(x) x/**/_r4
#include "esmio_typed.inc"
#undef FTYPE
#undef MEMTYPE
#undef NAME

#define FTYPE real(c_double)
#define MEMTYPE ESMIO_DOUBLE
#define NAME(x) x/**/_r8
#include "esmio_typed.inc"
#undef FTYPE
#undef MEMTYPE
#undef NAME

#define FTYPE integer(c_int32_t)
#define MEMTYPE ESMIO_INT
#define NAME(x) x/**/_i4
#include "esmio_typed.inc"
#undef FTYPE
#undef MEMTYPE
#undef NAME

#define FTYPE integer(c_int64_t)
#define MEMTYPE ESMIO_INT64
#define NAME(x) x/**/_i8
#include "esmio_typed.inc"
#undef FTYPE
#undef MEMTYPE
#undef NAME

end module esmio
