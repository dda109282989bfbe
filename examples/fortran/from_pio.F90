! History output written the way a PIO user writes it, with esmio. Each esmio call is commented
! with the PIO call it replaces; docs/from_pio.md has the whole table and the differences.
!
! The model's columns live in CAM-physics-style chunks: a rank holds whole chunks of pcols
! columns, A(pcols, lev, chunk), and the columns of a chunk are spread round-robin over the
! globe (load balance). The last column slot of some chunks is unused: PIO's compdof marks it
! 0, a hole, and esmio takes the same map unchanged. Holes are neither written nor read.
!
! Usage: mpirun -np N from_pio OUT.nc [SETTINGS]
!   SETTINGS: the file's settings, PIO's iotype: "backend=pnetcdf" (PIO_iotype_pnetcdf, the
!   default) or "backend=netcdf4" (PIO_iotype_netcdf4p).
program from_pio
  use mpi_f08
  use esmio
  implicit none

  integer, parameter :: nlon = 16, nlat = 12, nlev = 4, ncol = nlon * nlat, nrec = 2
  integer, parameter :: pcols = 7                                ! column slots per chunk
  integer, parameter :: nchunks = ceiling(ncol / real(pcols))
  real(8), parameter :: unused = 1.0d36       ! what sits in a hole: never reaches the file

  type(esmio_t) :: io                         ! PIO: type(iosystem_desc_t) :: ios
  type(esmio_file_t) :: file                  ! PIO: type(file_desc_t) :: file
  type(esmio_decomp_t) :: iodesc3d, iodesc2d  ! PIO: type(io_desc_t)
  ! PIO: type(var_desc_t) per variable; esmio: an integer id, like netCDF-Fortran.
  integer :: vt, vps, vtime, vlat, vlon, dlon, dlat, dlev, dtime
  character(len=512) :: path, settings, init_settings
  integer :: rank, nranks, ierr, nmine, lc, c, i, k, g, r
  integer, allocatable :: gcol(:, :)          ! global column (1 .. ncol) of each slot, 0 = none
  integer(8), allocatable :: compdof3d(:), compdof2d(:)   ! PIO_OFFSET_KIND, 1-based, 0 = hole
  real(8), allocatable :: t(:, :, :), ps(:, :), back(:, :)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  settings = "backend=pnetcdf"
  if (command_argument_count() >= 2) call get_command_argument(2, settings)

  ! PIO_init(rank, comm, num_iotasks, num_aggregator, stride, PIO_REARR_SUBSET, ios, base=0):
  ! every second rank an I/O task, each gathering a contiguous group of compute ranks. Errors
  ! are always returned (PIO_seterrorhandling(ios, PIO_RETURN_ERROR) has no equivalent: it
  ! is the only mode), with the same code on every rank.
  write (init_settings, '(a,i0,a)') "num_iotasks=", max(1, nranks / 2), &
    ",iotask_stride=2,iotask_offset=0,layout=subset"
  call check(esmio_init(MPI_COMM_WORLD, trim(init_settings), io), "esmio_init")

  ! ---- the model's chunks: chunk c (from 0) is on rank mod(c, nranks); its slot i holds
  ! global column c + 1 + (i - 1) * nchunks, if there is one.
  nmine = count([(mod(c, nranks) == rank, c = 0, nchunks - 1)])
  allocate (gcol(pcols, nmine), t(pcols, nlev, nmine), ps(pcols, nmine), back(pcols, nmine))
  do lc = 1, nmine
    c = rank + (lc - 1) * nranks
    do i = 1, pcols
      gcol(i, lc) = c + 1 + (i - 1) * nchunks
      if (gcol(i, lc) > ncol) gcol(i, lc) = 0
    end do
  end do

  ! ---- compdof, as for PIO_initdecomp: for each element of the rank's array in memory order,
  ! its 1-based linear index into the global field (nlon, nlat, nlev), or 0 for a hole. A global
  ! column g is (lon, lat) = (mod(g - 1, nlon) + 1, (g - 1) / nlon + 1), so the 3-D index of
  ! level k is g + (k - 1) * ncol.
  compdof2d = pack_map(1)
  compdof3d = pack_map(nlev)
  ! PIO_initdecomp(ios, PIO_double, [nlon, nlat, nlev], compdof3d, iodesc3d): esmio needs no
  ! type (one decomposition serves real(4), real(8) and integer arrays alike) and no rearranger
  ! (the layout is a setting of esmio_init).
  call check(esmio_decomp_create(io, [nlon, nlat, nlev], compdof3d, iodesc3d), "decomp 3-D")
  call check(esmio_decomp_create(io, [nlon, nlat], compdof2d, iodesc2d), "decomp 2-D")

  ! ---- define: PIO_createfile(ios, file, PIO_iotype_pnetcdf, path, PIO_CLOBBER); the
  ! iotype and the mode are settings of the file (clobber is the default).
  call check(esmio_create(io, trim(path), trim(settings), file), "esmio_create")
  ! PIO_def_dim(file, "time", PIO_UNLIMITED, dtime), ...: the same, ESMIO_UNLIMITED.
  call check(esmio_def_dim(file, "time", ESMIO_UNLIMITED, dtime), "def_dim time")
  call check(esmio_def_dim(file, "lev", nlev, dlev), "def_dim lev")
  call check(esmio_def_dim(file, "lat", nlat, dlat), "def_dim lat")
  call check(esmio_def_dim(file, "lon", nlon, dlon), "def_dim lon")
  ! PIO_def_var(file, "T", PIO_real, [dlon, dlat, dlev, dtime], vardesc_t): dimids in Fortran
  ! order, the record dimension last, as in PIO.
  call check(esmio_def_var(file, "time", ESMIO_DOUBLE, [dtime], vtime), "def_var time")
  call check(esmio_def_var(file, "lat", ESMIO_DOUBLE, [dlat], vlat), "def_var lat")
  call check(esmio_def_var(file, "lon", ESMIO_DOUBLE, [dlon], vlon), "def_var lon")
  call check(esmio_def_var(file, "T", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vt), "def_var T")
  call check(esmio_def_var(file, "PS", ESMIO_DOUBLE, [dlon, dlat, dtime], vps), "def_var PS")
  ! PIO_put_att(file, vardesc_t, "units", "K"); PIO_GLOBAL becomes ESMIO_GLOBAL.
  call check(esmio_put_att(file, vtime, "units", "days since 2000-01-01 00:00:00"), "att")
  call check(esmio_put_att(file, vtime, "calendar", "noleap"), "att")
  call check(esmio_put_att(file, vlat, "units", "degrees_north"), "att")
  call check(esmio_put_att(file, vlon, "units", "degrees_east"), "att")
  call check(esmio_put_att(file, vt, "units", "K"), "att")
  call check(esmio_put_att(file, vps, "units", "Pa"), "att")
  call check(esmio_put_att(file, ESMIO_GLOBAL, "Conventions", "CF-1.8"), "att")
  call check(esmio_put_att(file, ESMIO_GLOBAL, "source", &
                           "esmio examples/fortran/from_pio.F90"), "att")
  ! PIO_write_darray(..., fillval=) fills what no rank writes; esmio: the variable's fill value.
  call check(esmio_def_var_fill(file, vt, -999.0d0), "def_var_fill T")
  call check(esmio_enddef(file), "esmio_enddef")                 ! PIO_enddef(file)

  ! PIO_put_var(file, vardesc_lat, lat): every rank passes the same values.
  call check(esmio_put_var(file, vlat, [(-90.0d0 + (i - 0.5d0) * (180.0d0 / nlat), &
                                          i = 1, nlat)]), "put lat")
  call check(esmio_put_var(file, vlon, [((i - 1) * (360.0d0 / nlon), i = 1, nlon)]), "put lon")

  ! ---- records. Unused slots hold a value that must never reach the file.
  do r = 1, nrec
    t = unused
    ps = unused
    do lc = 1, nmine
      do i = 1, pcols
        g = gcol(i, lc)
        if (g == 0) cycle
        do k = 1, nlev
          t(i, k, lc) = 200.0d0 + r + 10.0d0 * k + 0.5d0 * lat_of(g) + 0.0625d0 * lon_of(g)
        end do
        ps(i, lc) = 1.0d5 - 100.0d0 * r + 10.0d0 * lat_of(g) + lon_of(g)
      end do
    end do
    ! PIO_put_var(file, vardesc_time, [r], [1], [time]).
    call check(esmio_put_vara(file, vtime, [r], [1], [0.25d0 * r]), "put time")
    ! PIO_setframe(file, vardesc_t, int(r, PIO_OFFSET_KIND)) then
    ! PIO_write_darray(file, vardesc_t, iodesc3d, t, ierr): the record is an argument here.
    call check(esmio_write_darray(file, vt, iodesc3d, t, record=r), "write T")
    call check(esmio_write_darray(file, vps, iodesc2d, ps, record=r), "write PS")
  end do
  call check(esmio_close(file), "esmio_close")                   ! PIO_closefile(file)

  ! ---- read back. PIO_openfile(ios, file, iotype, path, PIO_NOWRITE): the format is found.
  call check(esmio_open(io, trim(path), ESMIO_NOWRITE, "", file), "esmio_open")
  call check(esmio_inq_varid(file, "PS", vps), "inq_varid PS")   ! PIO_inq_varid
  ! PIO_setframe + PIO_read_darray(file, vardesc_ps, iodesc2d, back, ierr). PIO zeroes the
  ! array first; esmio leaves the holes as they were.
  back = -1.0d0
  call check(esmio_read_darray(file, vps, iodesc2d, back, record=nrec), "read PS")
  do lc = 1, nmine
    do i = 1, pcols
      if ((gcol(i, lc) /= 0 .and. back(i, lc) /= ps(i, lc)) .or. &
          (gcol(i, lc) == 0 .and. back(i, lc) /= -1.0d0)) then
        print '(a,i0,a,2i4)', "from_pio [rank ", rank, "] PS read back wrong at slot", i, lc
        call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
      end if
    end do
  end do
  call check(esmio_close(file), "esmio_close (read)")

  call check(esmio_decomp_free(iodesc3d), "decomp_free")         ! PIO_freedecomp(ios, iodesc)
  call check(esmio_decomp_free(iodesc2d), "decomp_free")
  call check(esmio_finalize(io), "esmio_finalize")               ! PIO_finalize(ios, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', "from_pio: ", nrec, " records on ", nranks, &
    " ranks, read back through the same compdof"
  call MPI_Finalize(ierr)

contains

  integer function lon_of(g)
    integer, intent(in) :: g
    lon_of = mod(g - 1, nlon) + 1
  end function

  integer function lat_of(g)
    integer, intent(in) :: g
    lat_of = (g - 1) / nlon + 1
  end function

  ! The compdof of an array (pcols, levels, nmine) in memory order: slot, level, chunk.
  function pack_map(levels) result(compdof)
    integer, intent(in) :: levels
    integer(8), allocatable :: compdof(:)
    integer :: n, chunk, level, slot
    allocate (compdof(pcols * levels * nmine))
    n = 0
    do chunk = 1, nmine
      do level = 1, levels
        do slot = 1, pcols
          n = n + 1
          compdof(n) = 0
          if (gcol(slot, chunk) /= 0) compdof(n) = gcol(slot, chunk) + int(level - 1, 8) * ncol
        end do
      end do
    end do
  end function

  ! With PIO_RETURN_ERROR a PIO user checks every code; esmio's are the same on every rank.
  subroutine check(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ignored
    if (code == ESMIO_NOERR) return
    print '(a,i0,a,a,a,a,a,a)', "from_pio [rank ", rank, "] ", what, ": ", &
      esmio_strerror(code), ": ", esmio_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 2, ignored)
  end subroutine
end program from_pio
