! The history file of pio_history.F90, written through esmio's own Fortran module (`use esmio`)
! with the same definitions in the same order, the same maps (history_case.F90) and the same
! values; the ctest compares the two files with ncdump (compare_history.sh). The iotype's
! settings are the ones PIO's layer gives esmio (docs/pio.md: iotypes).
! Usage: mpirun -np N pio_history_native OUT.nc pnetcdf|netcdf|netcdf4p
program pio_history_native
  use mpi
  use esmio
  use history_case
  implicit none
  type(esmio_t) :: io
  type(esmio_file_t) :: file
  type(esmio_decomp_t) :: d3, d2
  character(len=512) :: path, kind, settings
  integer :: rank, nranks, ierr, failures, total, i, frame
  integer :: dlon, dlat, dlev, dtime
  integer :: vlon, vlat, vtime, vnstep, vntrac, vland, vmask, vt, vu, vps, vprect
  integer, allocatable :: cols(:), dof2(:), mask(:, :)
  integer(8), allocatable :: dof3(:)
  real(8), allocatable :: a3(:, :, :), a2(:, :), a1(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, kind)
  settings = "backend=pnetcdf,format=cdf1,clobber=true"
  if (kind == "netcdf") settings = "backend=serial,format=cdf1,clobber=true"
  if (kind == "netcdf4p") settings = "backend=netcdf4,format=netcdf4,clobber=true"
  failures = 0

  call ok(esmio_init(MPI_COMM_WORLD, "", io), "esmio_init")
  cols = local_columns(rank, nranks)
  call maps(cols, dof2, dof3)
  allocate (a3(pcols, nlev, nchunks_of(cols)), a2(pcols, nchunks_of(cols)))
  allocate (mask(pcols, nchunks_of(cols)))
  call ok(esmio_decomp_create(io, [nlon, nlat, nlev], dof3, d3), "decomp 3-D")
  call ok(esmio_decomp_create(io, [nlon, nlat], dof2, d2), "decomp 2-D")

  ! ---- define
  call ok(esmio_create(io, trim(path), trim(settings), file), "esmio_create")
  call ok(esmio_def_dim(file, "lon", nlon, dlon), "def_dim lon")
  call ok(esmio_def_dim(file, "lat", nlat, dlat), "def_dim lat")
  call ok(esmio_def_dim(file, "lev", nlev, dlev), "def_dim lev")
  call ok(esmio_def_dim(file, "time", ESMIO_UNLIMITED, dtime), "def_dim time")
  call ok(esmio_def_var(file, "lon", ESMIO_DOUBLE, [dlon], vlon), "def_var lon")
  call ok(esmio_def_var(file, "lat", ESMIO_DOUBLE, [dlat], vlat), "def_var lat")
  call ok(esmio_def_var(file, "time", ESMIO_DOUBLE, [dtime], vtime), "def_var time")
  call ok(esmio_def_var(file, "nstep", ESMIO_INT, [dtime], vnstep), "def_var nstep")
  call ok(esmio_def_var(file, "ntrac", ESMIO_INT, varid=vntrac), "def_var ntrac")
  call ok(esmio_def_var(file, "LANDFRAC", ESMIO_DOUBLE, [dlon, dlat], vland), "def_var LANDFRAC")
  call ok(esmio_def_var(file, "MASK", ESMIO_INT, [dlon, dlat], vmask), "def_var MASK")
  call ok(esmio_def_var(file, "T", ESMIO_DOUBLE, [dlon, dlat, dlev, dtime], vt), "def_var T")
  call ok(esmio_def_var(file, "U", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vu), "def_var U")
  call ok(esmio_def_var(file, "PS", ESMIO_DOUBLE, [dlon, dlat, dtime], vps), "def_var PS")
  call ok(esmio_def_var(file, "PRECT", ESMIO_FLOAT, [dlon, dlat, dtime], vprect), "def_var PRECT")
  call ok(esmio_put_att(file, vtime, "units", "days since 2000-01-01 00:00:00"), "time units")
  call ok(esmio_put_att(file, vland, "_FillValue", fill8), "LANDFRAC fill")
  call ok(esmio_put_att(file, vmask, "_FillValue", -1), "MASK fill")
  call ok(esmio_put_att(file, vt, "units", "K"), "T units")
  call ok(esmio_put_att(file, vt, "long_name", "Temperature"), "T long_name")
  call ok(esmio_put_att(file, vt, "_FillValue", fill8), "T fill")
  call ok(esmio_put_att(file, vu, "units", "m/s"), "U units")
  call ok(esmio_put_att(file, vu, "valid_range", [-100.0, 100.0]), "U valid_range")
  call ok(esmio_put_att(file, vu, "_FillValue", fill4), "U fill")
  call ok(esmio_put_att(file, vps, "units", "Pa"), "PS units")
  call ok(esmio_put_att(file, vps, "_FillValue", fill8), "PS fill")
  call ok(esmio_put_att(file, vprect, "_FillValue", fill4), "PRECT fill")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "title", &
                        "CESM-like history through PIO's Fortran API"), "title")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "Conventions", "CF-1.0"), "Conventions")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "case_id", 42), "case_id")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "dtime", 1800.0d0), "dtime")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "version", 2.5), "version")
  if (kind == "netcdf4p") then
    call ok(esmio_def_var_compress(file, vt, "deflate:1:shuffle"), "def_var_compress")
    call ok(esmio_def_var_chunking(file, vu, [nlon, nlat, 1, 1]), "def_var_chunking")
  end if
  call ok(esmio_enddef(file), "esmio_enddef")

  ! ---- write
  call ok(esmio_put_var(file, vlon, [(30.0d0 * (i - 1), i = 1, nlon)]), "put_var lon")
  call ok(esmio_put_var(file, vlat, [(-70.0d0 + 20.0d0 * (i - 1), i = 1, nlat)]), "put_var lat")
  call ok(esmio_put_var(file, vntrac, 3), "put_var ntrac")
  call fill_2d(7, 0, cols, a2)
  a1 = reshape(a2, [size(a2)])
  call ok(esmio_write_darray(file, vland, d2, a1), "write_darray LANDFRAC")
  call fill_2d_int(cols, mask)
  call ok(esmio_write_darray(file, vmask, d2, mask), "write_darray MASK")
  do frame = 1, nframes
    call ok(esmio_put_vara(file, vtime, [frame], [1], [0.5d0 * frame]), "put_vara time")
    call ok(esmio_put_vara(file, vnstep, [frame], [1], [48 * frame]), "put_vara nstep")
    call fill_3d(1, frame, cols, a3)
    call ok(esmio_write_darray(file, vt, d3, a3, record=frame), "write_darray T")
    call fill_3d(2, frame, cols, a3)
    call ok(esmio_write_darray(file, vu, d3, real(a3, 4), record=frame), "write_darray U")
    call fill_2d(3, frame, cols, a2)
    call ok(esmio_write_darray(file, vps, d2, a2, record=frame), "write_darray PS")
    call fill_2d(4, frame, cols, a2)
    call ok(esmio_write_darray(file, vprect, d2, a2, record=frame), "write_darray PRECT")
    call ok(esmio_sync(file), "esmio_sync")
  end do
  call ok(esmio_close(file), "esmio_close")
  call ok(esmio_decomp_free(d3), "decomp_free 3-D")
  call ok(esmio_decomp_free(d2), "decomp_free 2-D")
  call ok(esmio_finalize(io), "esmio_finalize")

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print '(a)', "PASS: the history file written through esmio"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine ok(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    if (code == ESMIO_NOERR) return
    print '(a,i0,4a)', "rank ", rank, ": ", what, " failed: ", esmio_last_error()
    failures = failures + 1
  end subroutine
end program pio_history_native
