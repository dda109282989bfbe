! Built outside the source tree against an installed esmio (tests/install/test_install.sh): the
! Fortran twin of hello_pio.c through `use pio` and libesmio_piof, writing the same file.
program hello_pio
  use mpi
  use pio
  implicit none
  integer, parameter :: nlocal = 8
  type(iosystem_desc_t) :: ios
  type(file_desc_t) :: file
  type(io_desc_t) :: iodesc
  type(var_desc_t) :: vardesc
  integer :: rank, size, ierr, i, dimid
  integer(PIO_OFFSET_KIND) :: compdof(nlocal)
  real(8) :: values(nlocal), back(nlocal)
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  path = "hello_pio_f.nc"
  if (command_argument_count() > 0) call get_command_argument(1, path)
  call PIO_init(rank, MPI_COMM_WORLD, 1, 0, 1, PIO_rearr_box, ios)
  do i = 1, nlocal
    compdof(i) = int(i - 1, PIO_OFFSET_KIND) * size + rank + 1  ! 1-based, interleaved
    values(i) = 1000.0d0 * rank + (i - 1)
  end do
  call PIO_initdecomp(ios, PIO_double, [nlocal * size], compdof, iodesc)
  call check(PIO_createfile(ios, file, PIO_iotype_pnetcdf, trim(path), PIO_clobber), "create")
  call check(PIO_def_dim(file, "x", nlocal * size, dimid), "def_dim")
  call check(PIO_def_var(file, "v", PIO_double, [dimid], vardesc), "def_var")
  call check(PIO_enddef(file), "enddef")
  call PIO_write_darray(file, vardesc, iodesc, values, ierr)
  call check(ierr, "write_darray")
  call PIO_read_darray(file, vardesc, iodesc, back, ierr)
  call check(ierr, "read_darray")
  call PIO_closefile(file)
  if (any(back /= values)) then
    print *, "rank", rank, ": read back differs"
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call PIO_freedecomp(ios, iodesc)
  call PIO_finalize(ios, ierr)
  call check(ierr, "finalize")
  call MPI_Finalize(ierr)

contains

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ierr2
    if (code == PIO_noerr) return
    print *, "rank", rank, ": ", what, " returned ", code
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
  end subroutine
end program hello_pio
