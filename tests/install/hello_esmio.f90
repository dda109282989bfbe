! Built outside the source tree against an installed esmio (tests/install/test_install.sh): the
! Fortran twin of hello_esmio.c, writing the same file (a 1-based compdof map, interleaved).
program hello_esmio
  use mpi
  use esmio
  implicit none
  integer, parameter :: nlocal = 8
  type(esmio_t) :: io
  type(esmio_file_t) :: file
  type(esmio_decomp_t) :: decomp
  integer :: rank, size, ierr, i, dimid, varid
  integer(8) :: compdof(nlocal)
  real(8) :: values(nlocal), back(nlocal)
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  path = "hello_esmio_f.nc"
  if (command_argument_count() > 0) call get_command_argument(1, path)
  ! The integer communicator of `use mpi`.
  call check(esmio_init(MPI_COMM_WORLD, "", io), "init")
  do i = 1, nlocal
    compdof(i) = int(i - 1, 8) * size + rank + 1  ! interleaved over the ranks, 1-based
    values(i) = 1000.0d0 * rank + (i - 1)
  end do
  call check(esmio_decomp_create(io, [nlocal * size], compdof, decomp), "decomp")
  call check(esmio_create(io, trim(path), "", file), "create")
  call check(esmio_def_dim(file, "x", nlocal * size, dimid), "def_dim")
  call check(esmio_def_var(file, "v", ESMIO_DOUBLE, [dimid], varid), "def_var")
  call check(esmio_enddef(file), "enddef")
  call check(esmio_write_darray(file, varid, decomp, values), "write")
  call check(esmio_read_darray(file, varid, decomp, back), "read")
  call check(esmio_close(file), "close")
  if (any(back /= values)) then
    print *, "rank", rank, ": read back differs"
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call check(esmio_decomp_free(decomp), "free")
  call check(esmio_finalize(io), "finalize")
  if (rank == 0) print '(a,a,a,i0,a)', "esmio ", esmio_version(), &
    " (Fortran): written and read back on ", size, " rank(s)"
  call MPI_Finalize(ierr)

contains

  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ierr2
    if (code /= ESMIO_NOERR) then
      print '(a,a,a,a,a)', what, ": ", esmio_strerror(code), ": ", esmio_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    end if
  end subroutine
end program hello_esmio
