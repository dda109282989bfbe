! A toy atmosphere that writes its history through esmio, the way a CAM-like model does.
!
! Each rank owns a band of latitudes and holds its state as A(lon, lev, lat), the memory order
! of CAM's dynamics; the file stores every field as netCDF's (time, lev, lat, lon), which is
! (lon, lat, lev, time) in Fortran order. One esmio decomposition per field shape tells esmio
! where each rank's elements go; esmio moves them to its I/O tasks and writes large contiguous
! blocks, so the model never gathers a global field.
!
! The "dynamics" are cheap arithmetic (zonal upwind advection, relaxation to an equilibrium)
! so that tests/examples/check_toy_model.py can recompute every value bit for bit.
!
! Usage: mpirun -np N toy_model OUT.nc [SETTINGS]
!   SETTINGS: esmio settings for the file, e.g. "backend=netcdf4" (default: esmio's own).
program toy_model
  use mpi_f08
  use esmio
  implicit none

  ! The grid and the run: 6 steps of 6 hours, a history record every 2 steps.
  integer, parameter :: nlon = 16, nlat = 12, nlev = 4
  integer, parameter :: nsteps = 6, nhist = 2
  real(8), parameter :: dt = 21600.0d0            ! s
  real(8), parameter :: dx = 1.0d6                ! m, one grid length (a toy: no sphere)
  real(8), parameter :: relax_t = 0.025d0, relax_u = 0.125d0, relax_ts = 0.25d0
  real(8), parameter :: bump = 5.0d0              ! K, the warm anomaly the wind carries east

  type(esmio_t) :: io
  type(esmio_file_t) :: file
  type(esmio_decomp_t) :: d3, d2
  character(len=512) :: path, settings
  type(MPI_Comm) :: comm  ! the ranks that run the model (all but the I/O servers)
  integer :: rank, nranks, ierr, role, lat0, nlat_local, i, j, k, im1, ip1, step, rec
  integer :: dlon, dlat, dlev, dtime, vlon, vlat, vlev, vtime, vt, vu, vv, vps, vts
  real(8) :: lon(nlon), lat(nlat), lev(nlev), c
  ! The state, CAM's order: (lon, lev, this rank's latitudes). 2-D fields are (lon, lat).
  real(8), allocatable :: t(:, :, :), u(:, :, :), v(:, :, :), ps(:, :), ts(:, :)
  real(8), allocatable :: teq(:, :), ueq(:, :), t_old(:)

  call MPI_Init(ierr)
  ! ---- esmio first: with I/O servers (ESMIO_IO_SERVERS=K) some ranks serve here until the
  ! model finalizes, and the model runs on the compute ranks' communicator. Settings from
  ! ESMIO_* or defaults.
  call check(esmio_init(MPI_COMM_WORLD, "", io), "esmio_init")
  call check(esmio_inq_role(io, role), "esmio_inq_role")
  if (role == ESMIO_ROLE_SERVER) then
    call check(esmio_finalize(io), "esmio_finalize (server)")
    call MPI_Finalize(ierr)
    stop
  end if
  call check(esmio_inq_comm(io, comm), "esmio_inq_comm")
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  if (command_argument_count() < 1) then
    if (rank == 0) print '(a)', "usage: toy_model OUT.nc [SETTINGS]"
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call get_command_argument(1, path)
  settings = ""
  if (command_argument_count() >= 2) call get_command_argument(2, settings)

  ! ---- the grid and this rank's latitude band (lat0+1 .. lat0+nlat_local; may be empty)
  lon = [((i - 1) * (360.0d0 / nlon), i = 1, nlon)]
  lat = [(-90.0d0 + (j - 0.5d0) * (180.0d0 / nlat), j = 1, nlat)]
  lev = [(1000.0d0 * (k - 0.5d0) / nlev, k = 1, nlev)]           ! hPa, top first
  lat0 = (nlat * rank) / nranks
  nlat_local = (nlat * (rank + 1)) / nranks - lat0
  allocate (t(nlon, nlev, nlat_local), u(nlon, nlev, nlat_local), v(nlon, nlev, nlat_local))
  allocate (ps(nlon, nlat_local), ts(nlon, nlat_local), teq(nlev, nlat_local))
  allocate (ueq(nlev, nlat_local), t_old(nlon))

  ! ---- initial state: equilibrium temperature with a warm bump at lon 1-4, at rest
  do j = 1, nlat_local
    do k = 1, nlev
      teq(k, j) = equilibrium_t(lat(lat0 + j), lev(k))
      ueq(k, j) = equilibrium_u(lat(lat0 + j), lev(k))
      t(:, k, j) = teq(k, j)
      t(1:4, k, j) = teq(k, j) + bump
    end do
    ts(:, j) = teq(nlev, j)
  end do
  u = 0.0d0
  v = 0.0d0
  ps = 1.0d5

  ! ---- esmio's decompositions: each rank's latitude band.
  ! The 3-D fields are (lon, lat, lev) in the file but (lon, lev, lat) in memory: mem_order
  ! names, for each memory dimension, the field dimension it holds. No copy, no transpose.
  call check(esmio_decomp_create_block(io, [nlon, nlat, nlev], [1, lat0 + 1, 1], &
                                       [nlon, nlat_local, nlev], d3, mem_order=[1, 3, 2]), &
             "decomposition of the 3-D fields")
  ! The 2-D fields are held in the file's order.
  call check(esmio_decomp_create_block(io, [nlon, nlat], [1, lat0 + 1], [nlon, nlat_local], d2), &
             "decomposition of the 2-D fields")

  call define_history()

  ! ---- time stepping
  rec = 0
  do step = 1, nsteps
    do j = 1, nlat_local
      do k = 1, nlev
        ! The wind spins up towards a zonal jet.
        u(:, k, j) = u(:, k, j) + (ueq(k, j) - u(:, k, j)) * relax_u
        ! Temperature: upwind advection by u (u >= 0; a whole latitude circle is on this rank,
        ! so no halo exchange) and Newtonian relaxation to equilibrium.
        t_old = t(:, k, j)
        do i = 1, nlon
          im1 = modulo(i - 2, nlon) + 1
          c = u(i, k, j) * dt / dx
          t(i, k, j) = t_old(i) - c * (t_old(i) - t_old(im1)) + (teq(k, j) - t_old(i)) * relax_t
        end do
        ! A meridional wind from the zonal temperature gradient (a toy "thermal wind").
        do i = 1, nlon
          im1 = modulo(i - 2, nlon) + 1
          ip1 = modulo(i, nlon) + 1
          v(i, k, j) = -0.1d0 * (t(ip1, k, j) - t(im1, k, j))
        end do
      end do
      ! The surface follows the lowest level; pressure rises where the air is colder.
      ts(:, j) = ts(:, j) + (t(:, nlev, j) - ts(:, j)) * relax_ts
      ps(:, j) = ps(:, j) + 50.0d0 * (ts(:, j) - t(:, nlev, j))
    end do
    if (mod(step, nhist) == 0) then
      rec = rec + 1
      call write_history(rec, step * (dt / 86400.0d0))
    end if
  end do

  ! ---- the end: close flushes what esmio's write cache still holds
  call check(esmio_close(file), "esmio_close")
  call check(esmio_decomp_free(d3), "esmio_decomp_free 3-D")
  call check(esmio_decomp_free(d2), "esmio_decomp_free 2-D")
  call check(esmio_finalize(io), "esmio_finalize")
  if (rank == 0) print '(a,i0,a,i0,a,a)', "toy_model: ", rec, " records on ", nranks, &
    " ranks in ", trim(path)
  call MPI_Finalize(ierr)

contains

  real(8) function equilibrium_t(latitude, p)
    real(8), intent(in) :: latitude, p
    equilibrium_t = 230.0d0 + 70.0d0 * (p / 1000.0d0) - 40.0d0 * (latitude / 90.0d0)**2
  end function

  real(8) function equilibrium_u(latitude, p)
    real(8), intent(in) :: latitude, p
    equilibrium_u = 40.0d0 * (1.0d0 - (latitude / 90.0d0)**2) * (1.1d0 - p / 1000.0d0)
  end function

  ! Creates the history file: dimensions, CF coordinates and attributes, then the coordinates'
  ! values (every rank passes the same values; esmio writes them once).
  subroutine define_history()
    call check(esmio_create(io, trim(path), trim(settings), file), "esmio_create "//trim(path))
    call check(esmio_def_dim(file, "time", ESMIO_UNLIMITED, dtime), "def_dim time")
    call check(esmio_def_dim(file, "lev", nlev, dlev), "def_dim lev")
    call check(esmio_def_dim(file, "lat", nlat, dlat), "def_dim lat")
    call check(esmio_def_dim(file, "lon", nlon, dlon), "def_dim lon")

    call def_coordinate("time", [dtime], vtime, "days since 2000-01-01 00:00:00", "time", "T")
    call check(esmio_put_att(file, vtime, "calendar", "noleap"), "time calendar")
    call def_coordinate("lev", [dlev], vlev, "hPa", "air_pressure", "Z")
    call check(esmio_put_att(file, vlev, "positive", "down"), "lev positive")
    call def_coordinate("lat", [dlat], vlat, "degrees_north", "latitude", "Y")
    call def_coordinate("lon", [dlon], vlon, "degrees_east", "longitude", "X")

    ! Fortran order, the record dimension last: ncdump shows T(time, lev, lat, lon). The 3-D
    ! fields go to the file in single precision (the state is real(8); esmio converts).
    call def_field("T", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vt, "K", "Temperature", &
                   "air_temperature")
    call def_field("U", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vu, "m s-1", "Zonal wind", &
                   "eastward_wind")
    call def_field("V", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vv, "m s-1", &
                   "Meridional wind", "northward_wind")
    call def_field("PS", ESMIO_DOUBLE, [dlon, dlat, dtime], vps, "Pa", "Surface pressure", &
                   "surface_air_pressure")
    call def_field("TS", ESMIO_DOUBLE, [dlon, dlat, dtime], vts, "K", "Surface temperature", &
                   "surface_temperature")

    call check(esmio_put_att(file, ESMIO_GLOBAL, "Conventions", "CF-1.8"), "Conventions")
    call check(esmio_put_att(file, ESMIO_GLOBAL, "title", "esmio toy model history"), "title")
    call check(esmio_put_att(file, ESMIO_GLOBAL, "source", &
                             "esmio examples/fortran/toy_model.F90"), "source")
    call check(esmio_put_att(file, ESMIO_GLOBAL, "time_step_seconds", dt), "time_step_seconds")
    call check(esmio_enddef(file), "esmio_enddef")

    call check(esmio_put_var(file, vlev, lev), "put lev")
    call check(esmio_put_var(file, vlat, lat), "put lat")
    call check(esmio_put_var(file, vlon, lon), "put lon")
  end subroutine

  subroutine def_coordinate(name, dimids, varid, units, standard_name, axis)
    character(len=*), intent(in) :: name, units, standard_name, axis
    integer, intent(in) :: dimids(:)
    integer, intent(out) :: varid
    call check(esmio_def_var(file, name, ESMIO_DOUBLE, dimids, varid), "def_var "//name)
    call check(esmio_put_att(file, varid, "units", units), name//" units")
    call check(esmio_put_att(file, varid, "standard_name", standard_name), name//" standard_name")
    call check(esmio_put_att(file, varid, "long_name", standard_name), name//" long_name")
    call check(esmio_put_att(file, varid, "axis", axis), name//" axis")
  end subroutine

  subroutine def_field(name, xtype, dimids, varid, units, long_name, standard_name)
    character(len=*), intent(in) :: name, units, long_name, standard_name
    integer, intent(in) :: xtype, dimids(:)
    integer, intent(out) :: varid
    call check(esmio_def_var(file, name, xtype, dimids, varid), "def_var "//name)
    call check(esmio_put_att(file, varid, "units", units), name//" units")
    call check(esmio_put_att(file, varid, "long_name", long_name), name//" long_name")
    call check(esmio_put_att(file, varid, "standard_name", standard_name), &
               name//" standard_name")
    ! Instantaneous values at the record's time, not means over the interval.
    call check(esmio_put_att(file, varid, "cell_methods", "time: point"), name//" cell_methods")
  end subroutine

  ! One history record: the time, then each field straight from the model's arrays. The
  ! record is an argument of every write (no per-variable frame to set first).
  subroutine write_history(rec, days)
    integer, intent(in) :: rec
    real(8), intent(in) :: days
    call check(esmio_put_vara(file, vtime, [rec], [1], [days]), "put time")
    call check(esmio_write_darray(file, vt, d3, t, record=rec), "write T")
    call check(esmio_write_darray(file, vu, d3, u, record=rec), "write U")
    call check(esmio_write_darray(file, vv, d3, v, record=rec), "write V")
    call check(esmio_write_darray(file, vps, d2, ps, record=rec), "write PS")
    call check(esmio_write_darray(file, vts, d2, ts, record=rec), "write TS")
  end subroutine

  ! esmio returns the same code on every rank of a collective call, so every rank reaches
  ! MPI_Abort together; the message names the call and esmio's reason.
  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    integer :: ignored
    if (ierr == ESMIO_NOERR) return
    print '(a,i0,a,a,a,a,a,a)', "toy_model [rank ", rank, "] ", what, ": ", &
      esmio_strerror(ierr), ": ", esmio_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 2, ignored)
  end subroutine
end program toy_model
