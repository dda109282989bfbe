! PIO 2's Fortran procedures for I/O systems, errors, decompositions, files and frames, over
! the C layer (include/pio.h); names, argument lists and generic forms are PIO's. Each converts
! what a Fortran model passes (1-based ids and frames, Fortran dimension order, blank-padded
! names) into what the C functions take. Errors are the C layer's, under its error handler.
module esmio_pio_files
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_char, c_ptr, &
    c_null_ptr, c_null_char, c_loc, c_bool
  use esmio_pio_types
  use esmio_pio_c
  use esmio_pio_strings
  implicit none
  private

  public :: PIO_init, PIO_finalize, pio_seterrorhandling, PIO_set_hint, PIO_strerror
  public :: PIO_get_numiotasks, PIO_getnumiotasks, pio_iam_iotask, PIO_iotype_available
  public :: pio_set_buffer_size_limit, PIO_set_log_level, pio_set_rearr_opts, pio_setdebuglevel
  public :: pio_iosystem_is_active
  public :: PIO_initdecomp, PIO_freedecomp, PIO_get_local_array_size
  public :: PIO_createfile, PIO_openfile, PIO_closefile, PIO_syncfile, PIO_file_is_open
  public :: PIO_enddef, PIO_redef, PIO_set_fill, PIO_setframe, PIO_advanceframe

  interface PIO_init
    module procedure init_intracomm
  end interface
  interface pio_seterrorhandling
    module procedure seterrorhandling_file, seterrorhandling_iosystem, seterrorhandling_iosysid
  end interface
  interface PIO_getnumiotasks
    module procedure get_numiotasks
  end interface
  interface PIO_get_numiotasks
    module procedure get_numiotasks
  end interface
  ! compdof as integer(4) or integer(PIO_OFFSET_KIND); or a block by its start and count.
  interface PIO_initdecomp
    module procedure initdecomp_dof_i4, initdecomp_dof_i8, initdecomp_block
  end interface
  interface PIO_freedecomp
    module procedure freedecomp_iosystem, freedecomp_file
  end interface
  interface PIO_enddef
    module procedure enddef_desc, enddef_id
  end interface
  interface PIO_redef
    module procedure redef_desc, redef_id
  end interface
  interface PIO_set_fill
    module procedure set_fill_desc, set_fill_id
  end interface
  interface PIO_setframe
    module procedure setframe
  end interface
  interface PIO_advanceframe
    module procedure advanceframe
  end interface

contains

  ! ---- I/O systems and errors ---------------------------------------------------------------

  ! comp_comm: the integer communicator of `use mpi` (or mpi_f08's %MPI_VAL). comp_rank and
  ! num_aggregator are accepted, as in PIO, and unused; base defaults to 0.
  subroutine init_intracomm(comp_rank, comp_comm, num_iotasks, num_aggregator, stride, rearr, &
                            iosystem, base, rearr_opts)
    integer, intent(in) :: comp_rank, comp_comm, num_iotasks, num_aggregator, stride, rearr
    type(iosystem_desc_t), intent(out) :: iosystem
    integer, intent(in), optional :: base
    type(pio_rearr_opt_t), intent(in), optional, target :: rearr_opts
    type(c_ptr) :: opts
    integer :: first, ierr
    if (comp_rank < 0 .or. num_aggregator < 0) continue  ! PIO's arguments, unused here
    first = 0
    if (present(base)) first = base
    opts = c_null_ptr
    if (present(rearr_opts)) opts = c_loc(rearr_opts)
    ierr = PIOc_Init_Intracomm_from_F90(comp_comm, num_iotasks, stride, first, rearr, opts, &
                                        iosystem%iosysid)
    if (ierr /= PIO_noerr) iosystem%iosysid = -1
  end subroutine

  ! Frees the I/O system's decompositions with it; open files are an error.
  subroutine PIO_finalize(iosystem, ierr)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(out) :: ierr
    ierr = PIO_noerr
    if (iosystem%iosysid == -1) return
    ierr = PIOc_finalize(iosystem%iosysid)
    if (ierr == PIO_noerr) iosystem%iosysid = -1
  end subroutine

  ! method: PIO_internal_error, PIO_bcast_error or PIO_return_error, for the whole I/O system
  ! (of the file); oldmethod: the previous one.
  subroutine seterrorhandling_iosysid(iosysid, method, oldmethod)
    integer, intent(in) :: iosysid, method
    integer, intent(out), optional :: oldmethod
    integer :: old
    old = PIOc_Set_IOSystem_Error_Handling(iosysid, method)
    if (present(oldmethod)) oldmethod = old
  end subroutine

  subroutine seterrorhandling_iosystem(iosystem, method, oldmethod)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(in) :: method
    integer, intent(out), optional :: oldmethod
    call seterrorhandling_iosysid(iosystem%iosysid, method, oldmethod)
  end subroutine

  subroutine seterrorhandling_file(file, method, oldmethod)
    type(file_desc_t), intent(inout) :: file
    integer, intent(in) :: method
    integer, intent(out), optional :: oldmethod
    integer :: old
    old = PIOc_Set_File_Error_Handling(file%fh, method)
    if (present(oldmethod)) oldmethod = old
  end subroutine

  ! Accepted and ignored: MPI-IO hints are esmio's mpiio_hints setting (docs/pio.md).
  subroutine PIO_set_hint(iosystem, hint, hintval)
    type(iosystem_desc_t), intent(inout) :: iosystem
    character(len=*), intent(in) :: hint, hintval
    integer :: ierr
    ierr = PIOc_set_hint(iosystem%iosysid, c_str(hint), c_str(hintval))
  end subroutine

  ! errmsg: netCDF's (or PIO's) text for errcode.
  integer function PIO_strerror(errcode, errmsg) result(ierr)
    integer, intent(in) :: errcode
    character(len=*), intent(out) :: errmsg
    character(kind=c_char) :: buffer(PIO_max_name + 1)
    buffer = c_null_char
    ierr = PIOc_strerror(errcode, buffer)
    call from_c(buffer, errmsg)
  end function

  subroutine get_numiotasks(iosystem, numiotasks)
    type(iosystem_desc_t), intent(in) :: iosystem
    integer, intent(out) :: numiotasks
    integer :: ierr
    ierr = PIOc_get_numiotasks(iosystem%iosysid, numiotasks)
  end subroutine

  logical function pio_iam_iotask(iosystem) result(task)
    type(iosystem_desc_t), intent(in) :: iosystem
    logical(c_bool) :: is_iotask
    integer :: ierr
    is_iotask = .false.
    ierr = PIOc_iam_iotask(iosystem%iosysid, is_iotask)
    task = is_iotask
  end function

  logical function PIO_iotype_available(iotype) result(available)
    integer, intent(in) :: iotype
    available = PIOc_iotype_available(iotype) == 1
  end function

  ! Checked and ignored: esmio plans its exchange itself (docs/pio.md: rearrangers).
  integer function pio_set_rearr_opts(ios, comm_type, fcd, enable_hs_c2i, enable_isend_c2i, &
                                      max_pend_req_c2i, enable_hs_i2c, enable_isend_i2c, &
                                      max_pend_req_i2c) result(ierr)
    type(iosystem_desc_t), intent(inout) :: ios
    integer, intent(in) :: comm_type, fcd, max_pend_req_c2i, max_pend_req_i2c
    logical, intent(in) :: enable_hs_c2i, enable_isend_c2i, enable_hs_i2c, enable_isend_i2c
    ierr = PIOc_set_rearr_opts(ios%iosysid, comm_type, fcd, logical(enable_hs_c2i, c_bool), &
                               logical(enable_isend_c2i, c_bool), max_pend_req_c2i, &
                               logical(enable_hs_i2c, c_bool), logical(enable_isend_i2c, c_bool), &
                               max_pend_req_i2c)
  end function

  ! Accepted: esmio's trace (docs/trace.md) says what happened, without a debug level.
  subroutine pio_setdebuglevel(level)
    integer, intent(in) :: level
    if (level < 0) continue  ! PIO's argument, unused here
  end subroutine

  subroutine pio_iosystem_is_active(iosystem, active)
    type(iosystem_desc_t), intent(in) :: iosystem
    logical, intent(out) :: active
    logical(c_bool) :: is_active
    integer :: ierr
    is_active = .false.
    ierr = PIOc_iosystem_is_active(iosystem%iosysid, is_active)
    active = is_active
  end subroutine

  ! Accepted: esmio's write cache is sized by its cache setting.
  subroutine pio_set_buffer_size_limit(limit)
    integer(PIO_OFFSET_KIND), intent(in) :: limit
    integer(c_int64_t) :: old
    old = PIOc_set_buffer_size_limit(limit)
  end subroutine

  integer function PIO_set_log_level(log_level) result(ierr)
    integer, intent(in) :: log_level
    ierr = PIOc_set_log_level(log_level)
  end function

  ! ---- decompositions -----------------------------------------------------------------------

  ! dims: the field's shape in Fortran order; compdof: for each of the task's elements in
  ! memory order, its 1-based position in the field (Fortran order), 0 for a hole. rearr,
  ! iostart and iocount are accepted and ignored (esmio's layout is the I/O system's).
  subroutine initdecomp_dof_i8(iosystem, basepiotype, dims, compdof, iodesc, rearr, iostart, &
                               iocount)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(in) :: basepiotype, dims(:)
    integer(PIO_OFFSET_KIND), intent(in) :: compdof(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer, intent(in), optional, target :: rearr
    integer(PIO_OFFSET_KIND), intent(in), optional :: iostart(:), iocount(:)
    type(c_ptr) :: crearr
    integer(c_int) :: cdims(size(dims))
    integer :: ierr
    if (present(iostart) .and. present(iocount)) continue  ! PIO's arguments, unused here
    crearr = c_null_ptr
    if (present(rearr)) crearr = c_loc(rearr)
    cdims = int(dims(size(dims):1:-1), c_int)
    ierr = PIOc_InitDecomp(iosystem%iosysid, basepiotype, size(dims), cdims, size(compdof), &
                           compdof, iodesc%ioid, crearr, c_null_ptr, c_null_ptr)
  end subroutine

  subroutine initdecomp_dof_i4(iosystem, basepiotype, dims, compdof, iodesc, rearr, iostart, &
                               iocount)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(in) :: basepiotype, dims(:)
    integer(c_int32_t), intent(in) :: compdof(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer, intent(in), optional, target :: rearr
    integer(PIO_OFFSET_KIND), intent(in), optional :: iostart(:), iocount(:)
    call initdecomp_dof_i8(iosystem, basepiotype, dims, int(compdof, PIO_OFFSET_KIND), iodesc, &
                           rearr, iostart, iocount)
  end subroutine

  ! A block: the task holds the box compstart (1-based) .. compstart + compcount - 1 of the
  ! field, in Fortran order, as one array of that shape.
  subroutine initdecomp_block(iosystem, basepiotype, dims, compstart, compcount, iodesc)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(in) :: basepiotype, dims(:)
    integer(PIO_OFFSET_KIND), intent(in) :: compstart(:), compcount(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer(PIO_OFFSET_KIND), allocatable :: compdof(:)
    integer(PIO_OFFSET_KIND) :: index(size(dims)), stride, n, i
    integer :: d
    allocate (compdof(max(product(compcount), 0_PIO_OFFSET_KIND)))
    ! Element n of the block (column-major) at its position in the field.
    do n = 1, size(compdof, kind=PIO_OFFSET_KIND)
      i = n - 1
      do d = 1, size(dims)
        index(d) = compstart(d) - 1 + mod(i, compcount(d))
        i = i / compcount(d)
      end do
      compdof(n) = 1
      stride = 1
      do d = 1, size(dims)
        compdof(n) = compdof(n) + index(d) * stride
        stride = stride * dims(d)
      end do
    end do
    call initdecomp_dof_i8(iosystem, basepiotype, dims, compdof, iodesc)
  end subroutine

  subroutine freedecomp_iosystem(iosystem, iodesc)
    type(iosystem_desc_t), intent(inout) :: iosystem
    type(io_desc_t), intent(inout) :: iodesc
    integer :: ierr
    ierr = PIOc_freedecomp(iosystem%iosysid, iodesc%ioid)
    if (ierr == PIO_noerr) iodesc%ioid = -1
  end subroutine

  ! As PIO: the file is synced first.
  subroutine freedecomp_file(file, iodesc)
    type(file_desc_t), intent(inout) :: file
    type(io_desc_t), intent(inout) :: iodesc
    call PIO_syncfile(file)
    if (associated(file%iosystem)) call freedecomp_iosystem(file%iosystem, iodesc)
  end subroutine

  integer function PIO_get_local_array_size(iodesc) result(length)
    type(io_desc_t), intent(in) :: iodesc
    length = PIOc_get_local_array_size(iodesc%ioid)
  end function

  ! ---- files --------------------------------------------------------------------------------

  ! amode_in: PIO_clobber (default) or PIO_noclobber, with PIO_64bit_offset or PIO_64bit_data
  ! for the classic formats. file keeps a pointer to iosystem, as in PIO.
  integer function PIO_createfile(iosystem, file, iotype, fname, amode_in) result(ierr)
    type(iosystem_desc_t), intent(inout), target :: iosystem
    type(file_desc_t), intent(out) :: file
    integer, intent(in) :: iotype
    character(len=*), intent(in) :: fname
    integer, intent(in), optional :: amode_in
    integer(c_int) :: mode, ciotype
    mode = PIO_clobber
    if (present(amode_in)) mode = amode_in
    ciotype = iotype
    ierr = PIOc_createfile(iosystem%iosysid, file%fh, ciotype, c_str(fname), mode)
    file%iosystem => iosystem
  end function

  ! mode: PIO_nowrite (default) or PIO_write.
  integer function PIO_openfile(iosystem, file, iotype, fname, mode) result(ierr)
    type(iosystem_desc_t), intent(inout), target :: iosystem
    type(file_desc_t), intent(out) :: file
    integer, intent(in) :: iotype
    character(len=*), intent(in) :: fname
    integer, intent(in), optional :: mode
    integer(c_int) :: cmode, ciotype
    cmode = PIO_nowrite
    if (present(mode)) cmode = mode
    ciotype = iotype
    ierr = PIOc_openfile(iosystem%iosysid, file%fh, ciotype, c_str(fname), cmode)
    file%iosystem => iosystem
  end function

  subroutine PIO_closefile(file)
    type(file_desc_t), intent(inout) :: file
    integer :: ierr
    ierr = PIOc_closefile(file%fh)
    nullify (file%iosystem)
  end subroutine

  subroutine PIO_syncfile(file)
    type(file_desc_t), intent(inout) :: file
    integer :: ierr
    ierr = PIOc_sync(file%fh)
  end subroutine

  logical function PIO_file_is_open(file) result(is_open)
    type(file_desc_t), intent(in) :: file
    is_open = PIOc_File_is_Open(file%fh) == 1
  end function

  integer function enddef_id(ncid) result(ierr)
    integer, intent(in) :: ncid
    ierr = PIOc_enddef(ncid)
  end function

  integer function enddef_desc(file) result(ierr)
    type(file_desc_t), intent(inout) :: file
    ierr = PIOc_enddef(file%fh)
  end function

  integer function redef_id(ncid) result(ierr)
    integer, intent(in) :: ncid
    ierr = PIOc_redef(ncid)
  end function

  integer function redef_desc(file) result(ierr)
    type(file_desc_t), intent(inout) :: file
    ierr = PIOc_redef(file%fh)
  end function

  ! Accepted; filling stays on (docs/pio.md).
  integer function set_fill_id(ncid, fillmode, old_mode) result(ierr)
    integer, intent(in) :: ncid, fillmode
    integer, intent(out) :: old_mode
    ierr = PIOc_set_fill(ncid, fillmode, old_mode)
  end function

  integer function set_fill_desc(file, fillmode, old_mode) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: fillmode
    integer, intent(out) :: old_mode
    ierr = PIOc_set_fill(file%fh, fillmode, old_mode)
  end function

  ! ---- frames -------------------------------------------------------------------------------

  ! frame: 1-based record of the variable's next write_darray / read_darray.
  subroutine setframe(file, vardesc, frame)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(inout) :: vardesc
    integer(PIO_OFFSET_KIND), intent(in) :: frame
    integer :: ierr
    ierr = PIOc_setframe(file%fh, vardesc%varid - 1, int(frame - 1, c_int))
  end subroutine

  subroutine advanceframe(file, vardesc)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(inout) :: vardesc
    integer :: ierr
    ierr = PIOc_advanceframe(file%fh, vardesc%varid - 1)
  end subroutine
end module esmio_pio_files
