! The C API of include/esmio.h as ISO_C_BINDING interfaces, one to one. Private to the esmio
! module (fortran/esmio.F90), which turns Fortran strings, 1-based ids and Fortran dimension
! order into what these expect; a model never sees this module.
module esmio_c
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_double, c_ptr, c_char
  implicit none
  private

  ! esmio_counter.
  type, bind(C), public :: esmio_counter
    integer(c_int64_t) :: calls = 0
    integer(c_int64_t) :: bytes = 0
    real(c_double) :: seconds = 0
  end type esmio_counter

  public :: c_esmio_version, c_esmio_strerror, c_esmio_last_error
  public :: c_esmio_init_f, c_esmio_finalize, c_esmio_inq_settings, c_esmio_inq_iotasks
  public :: c_esmio_inq_iolayout
  public :: c_esmio_inq_role, c_esmio_inq_comm_f, c_esmio_stage_wait
  public :: c_esmio_create, c_esmio_open, c_esmio_def_var_chunking, c_esmio_def_var_compress
  public :: c_esmio_def_var_quantize, c_esmio_inq_file_settings, c_esmio_sync, c_esmio_close
  public :: c_esmio_def_dim, c_esmio_def_var, c_esmio_def_var_fill_typed, c_esmio_put_att
  public :: c_esmio_enddef, c_esmio_redef
  public :: c_esmio_inq_dimid, c_esmio_inq_dimlen, c_esmio_inq_varid, c_esmio_inq_var
  public :: c_esmio_inq_nvars, c_esmio_inq_nrecords, c_esmio_inq_att, c_esmio_get_att
  public :: c_esmio_inq_ndims, c_esmio_inq_unlimdim, c_esmio_inq_dimname, c_esmio_inq_varname
  public :: c_esmio_inq_natts, c_esmio_inq_attname
  public :: c_esmio_put_vara, c_esmio_get_vara, c_esmio_put_var, c_esmio_get_var
  public :: c_esmio_decomp_create, c_esmio_decomp_create_block, c_esmio_decomp_load
  public :: c_esmio_decomp_save, c_esmio_decomp_inq, c_esmio_decomp_inq_offsets
  public :: c_esmio_decomp_free, c_esmio_write_darray, c_esmio_read_darray
  public :: c_esmio_trace_counter, c_esmio_trace_histogram, c_esmio_trace_reset
  public :: c_esmio_trace_write

  interface
    type(c_ptr) function c_esmio_version() bind(C, name="esmio_version")
      import :: c_ptr
    end function
    type(c_ptr) function c_esmio_strerror(code) bind(C, name="esmio_strerror")
      import :: c_ptr, c_int
      integer(c_int), value :: code
    end function
    type(c_ptr) function c_esmio_last_error() bind(C, name="esmio_last_error")
      import :: c_ptr
    end function

    ! ---- instance
    integer(c_int) function c_esmio_init_f(comm, settings, io) bind(C, name="esmio_init_f")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: settings(*)
      type(c_ptr), intent(out) :: io
    end function
    integer(c_int) function c_esmio_finalize(io) bind(C, name="esmio_finalize")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: io
    end function
    integer(c_int) function c_esmio_inq_settings(io, buf, buflen) &
        bind(C, name="esmio_inq_settings")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: io
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_int64_t), value :: buflen
    end function
    integer(c_int) function c_esmio_inq_iolayout(io, buf, buflen) &
        bind(C, name="esmio_inq_iolayout")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: io
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_int64_t), value :: buflen
    end function
    integer(c_int) function c_esmio_inq_iotasks(io, num_iotasks, is_iotask) &
        bind(C, name="esmio_inq_iotasks")
      import :: c_int, c_ptr
      type(c_ptr), value :: io
      integer(c_int), intent(out) :: num_iotasks, is_iotask
    end function

    integer(c_int) function c_esmio_inq_role(io, role) bind(C, name="esmio_inq_role")
      import :: c_int, c_ptr
      type(c_ptr), value :: io
      integer(c_int), intent(out) :: role
    end function

    integer(c_int) function c_esmio_inq_comm_f(io, comm) bind(C, name="esmio_inq_comm_f")
      import :: c_int, c_ptr
      type(c_ptr), value :: io
      integer(c_int), intent(out) :: comm
    end function

    integer(c_int) function c_esmio_stage_wait(io, path) bind(C, name="esmio_stage_wait")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*)
    end function

    ! ---- files
    integer(c_int) function c_esmio_create(io, path, settings, file) bind(C, name="esmio_create")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*), settings(*)
      type(c_ptr), intent(out) :: file
    end function
    integer(c_int) function c_esmio_open(io, path, mode, settings, file) &
        bind(C, name="esmio_open")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*), settings(*)
      integer(c_int), value :: mode
      type(c_ptr), intent(out) :: file
    end function
    integer(c_int) function c_esmio_def_var_chunking(file, varid, ndims, chunks) &
        bind(C, name="esmio_def_var_chunking")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, ndims
      integer(c_int64_t), intent(in) :: chunks(*)
    end function
    integer(c_int) function c_esmio_def_var_compress(file, varid, spec) &
        bind(C, name="esmio_def_var_compress")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      character(kind=c_char), intent(in) :: spec(*)
    end function
    integer(c_int) function c_esmio_def_var_quantize(file, varid, spec) &
        bind(C, name="esmio_def_var_quantize")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      character(kind=c_char), intent(in) :: spec(*)
    end function
    integer(c_int) function c_esmio_inq_file_settings(file, buf, buflen) &
        bind(C, name="esmio_inq_file_settings")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_int64_t), value :: buflen
    end function
    integer(c_int) function c_esmio_sync(file) bind(C, name="esmio_sync")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
    end function
    integer(c_int) function c_esmio_close(file) bind(C, name="esmio_close")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: file
    end function

    ! ---- definitions
    integer(c_int) function c_esmio_def_dim(file, name, len, dimid) bind(C, name="esmio_def_dim")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: len
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function c_esmio_def_var(file, name, xtype, ndims, dimids, varid) &
        bind(C, name="esmio_def_var")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: xtype, ndims
      integer(c_int), intent(in) :: dimids(*)
      integer(c_int), intent(out) :: varid
    end function
    integer(c_int) function c_esmio_def_var_fill_typed(file, varid, memtype, fill) &
        bind(C, name="esmio_def_var_fill_typed")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      type(c_ptr), value :: fill
    end function
    integer(c_int) function c_esmio_put_att(file, varid, name, xtype, len, values) &
        bind(C, name="esmio_put_att")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, xtype
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: len
      type(c_ptr), value :: values
    end function
    integer(c_int) function c_esmio_enddef(file) bind(C, name="esmio_enddef")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
    end function
    integer(c_int) function c_esmio_redef(file) bind(C, name="esmio_redef")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
    end function

    ! ---- inquiry
    integer(c_int) function c_esmio_inq_dimid(file, name, dimid) bind(C, name="esmio_inq_dimid")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function c_esmio_inq_dimlen(file, dimid, len) bind(C, name="esmio_inq_dimlen")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: dimid
      integer(c_int64_t), intent(out) :: len
    end function
    integer(c_int) function c_esmio_inq_varid(file, name, varid) bind(C, name="esmio_inq_varid")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: file
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: varid
    end function
    integer(c_int) function c_esmio_inq_var(file, varid, xtype, ndims, dimids) &
        bind(C, name="esmio_inq_var")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      integer(c_int), intent(out) :: xtype, ndims
      integer(c_int), intent(out) :: dimids(*)
    end function
    integer(c_int) function c_esmio_inq_nvars(file, nvars) bind(C, name="esmio_inq_nvars")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), intent(out) :: nvars
    end function
    integer(c_int) function c_esmio_inq_nrecords(file, nrecords) &
        bind(C, name="esmio_inq_nrecords")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int64_t), intent(out) :: nrecords
    end function
    integer(c_int) function c_esmio_inq_att(file, varid, name, xtype, len) &
        bind(C, name="esmio_inq_att")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: xtype
      integer(c_int64_t), intent(out) :: len
    end function
    integer(c_int) function c_esmio_get_att(file, varid, name, memtype, len, values) &
        bind(C, name="esmio_get_att")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: len
      type(c_ptr), value :: values
    end function
    integer(c_int) function c_esmio_inq_ndims(file, ndims) bind(C, name="esmio_inq_ndims")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), intent(out) :: ndims
    end function
    integer(c_int) function c_esmio_inq_unlimdim(file, dimid) bind(C, name="esmio_inq_unlimdim")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function c_esmio_inq_dimname(file, dimid, name, buflen) &
        bind(C, name="esmio_inq_dimname")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: dimid
      character(kind=c_char), intent(out) :: name(*)
      integer(c_int64_t), value :: buflen
    end function
    integer(c_int) function c_esmio_inq_varname(file, varid, name, buflen) &
        bind(C, name="esmio_inq_varname")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      character(kind=c_char), intent(out) :: name(*)
      integer(c_int64_t), value :: buflen
    end function
    integer(c_int) function c_esmio_inq_natts(file, varid, natts) bind(C, name="esmio_inq_natts")
      import :: c_int, c_ptr
      type(c_ptr), value :: file
      integer(c_int), value :: varid
      integer(c_int), intent(out) :: natts
    end function
    integer(c_int) function c_esmio_inq_attname(file, varid, attnum, name, buflen) &
        bind(C, name="esmio_inq_attname")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, attnum
      character(kind=c_char), intent(out) :: name(*)
      integer(c_int64_t), value :: buflen
    end function

    ! ---- undecomposed data
    integer(c_int) function c_esmio_put_vara(file, varid, start, count, memtype, buf) &
        bind(C, name="esmio_put_vara")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function c_esmio_get_vara(file, varid, start, count, memtype, buf) &
        bind(C, name="esmio_get_vara")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function c_esmio_put_var(file, varid, memtype, buf, nelems) &
        bind(C, name="esmio_put_var")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      type(c_ptr), value :: buf
      integer(c_int64_t), value :: nelems
    end function
    integer(c_int) function c_esmio_get_var(file, varid, memtype, buf, nelems) &
        bind(C, name="esmio_get_var")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file
      integer(c_int), value :: varid, memtype
      type(c_ptr), value :: buf
      integer(c_int64_t), value :: nelems
    end function

    ! ---- decompositions
    integer(c_int) function c_esmio_decomp_create(io, ndims, dims, nlocal, offsets, decomp) &
        bind(C, name="esmio_decomp_create")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: io
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), value :: nlocal
      integer(c_int64_t), intent(in) :: offsets(*)
      type(c_ptr), intent(out) :: decomp
    end function
    integer(c_int) function c_esmio_decomp_create_block(io, ndims, dims, start, count, &
                                                        mem_order, decomp) &
        bind(C, name="esmio_decomp_create_block")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: io
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: dims(*), start(*), count(*)
      integer(c_int), intent(in) :: mem_order(*)
      type(c_ptr), intent(out) :: decomp
    end function
    integer(c_int) function c_esmio_decomp_load(io, path, format, decomp) &
        bind(C, name="esmio_decomp_load")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*), format(*)
      type(c_ptr), intent(out) :: decomp
    end function
    integer(c_int) function c_esmio_decomp_save(decomp, path, format) &
        bind(C, name="esmio_decomp_save")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: decomp
      character(kind=c_char), intent(in) :: path(*), format(*)
    end function
    integer(c_int) function c_esmio_decomp_inq(decomp, ndims, dims, nlocal) &
        bind(C, name="esmio_decomp_inq")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: decomp
      integer(c_int), intent(out) :: ndims
      integer(c_int64_t), intent(out) :: dims(*)
      integer(c_int64_t), intent(out) :: nlocal
    end function
    integer(c_int) function c_esmio_decomp_inq_offsets(decomp, offsets, len) &
        bind(C, name="esmio_decomp_inq_offsets")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: decomp
      integer(c_int64_t), intent(out) :: offsets(*)
      integer(c_int64_t), value :: len
    end function
    integer(c_int) function c_esmio_decomp_free(decomp) bind(C, name="esmio_decomp_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: decomp
    end function

    ! ---- decomposed data
    integer(c_int) function c_esmio_write_darray(file, varid, record, decomp, memtype, buf, &
                                                 nelems) bind(C, name="esmio_write_darray")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file, decomp, buf
      integer(c_int), value :: varid, memtype
      integer(c_int64_t), value :: record, nelems
    end function
    integer(c_int) function c_esmio_read_darray(file, varid, record, decomp, memtype, buf, &
                                                nelems) bind(C, name="esmio_read_darray")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: file, decomp, buf
      integer(c_int), value :: varid, memtype
      integer(c_int64_t), value :: record, nelems
    end function

    ! ---- trace
    integer(c_int) function c_esmio_trace_counter(io, name, counter) &
        bind(C, name="esmio_trace_counter")
      import :: c_int, c_ptr, c_char, esmio_counter
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: name(*)
      type(esmio_counter), intent(out) :: counter
    end function
    integer(c_int) function c_esmio_trace_histogram(io, bins) bind(C, name="esmio_trace_histogram")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: io
      integer(c_int64_t), intent(out) :: bins(*)
    end function
    integer(c_int) function c_esmio_trace_reset(io) bind(C, name="esmio_trace_reset")
      import :: c_int, c_ptr
      type(c_ptr), value :: io
    end function
    integer(c_int) function c_esmio_trace_write(io, path) bind(C, name="esmio_trace_write")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*)
    end function
  end interface
end module esmio_c
