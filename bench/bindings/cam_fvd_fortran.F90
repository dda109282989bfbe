! The esmio-bench cam-fvd record set written through the Fortran module (`use esmio`), for the
! binding-overhead comparison with the C and Python paths: the same
! workload, decompositions, values, call sequence, clock, options and JSON line as
! cam_fvd_python.py (read its docstring for the workload); bench/bindings/compare.py runs the
! three.
!
!   mpirun -np 4 bindings_cam_fvd_fortran [--reps 5] [--dir .] [--backend pnetcdf|netcdf4]
!          [--iotasks 0] [--scale 1.0] [--fsync] [--keep]
!
! As a model holds them: a 3-D field is A(lon, lev, lat_local) (C's memory [lat][lev][lon]),
! written to the file's T(time, lev, lat, lon), i.e. Fortran (lon, lat, lev, time), through
! esmio_decomp_create_block(..., mem_order=[1, 3, 2]); a 2-D field is B(lon, lat_local).
! Both are contiguous pointers into one reused buffer. Values as the Python script's: the
! global C-order offset of every memory slot times 1e-6 (base, computed once from the
! decomposition's compdof), plus 1000*v + t per field, timed separately (generate_s). Also per
! repetition, the slowest rank's sum of write_darray as timed here (write_call_s) and of that
! minus the library's "write_darray" trace counter (binding_s: the module's own cost).
program cam_fvd_fortran
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_null_char
  use mpi_f08
  use esmio
  implicit none

  interface
    integer(c_int) function c_open(path, flags) bind(c, name="open")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags
    end function
    integer(c_int) function c_fsync(fd) bind(c, name="fsync")
      import :: c_int
      integer(c_int), value :: fd
    end function
    integer(c_int) function c_close(fd) bind(c, name="close")
      import :: c_int
      integer(c_int), value :: fd
    end function
    integer(c_int) function c_unlink(path) bind(c, name="unlink")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
    end function
  end interface

  character(len=8), parameter :: names3d(34) = [character(len=8) :: &
    "T", "U", "V", "Q", "OMEGA", "Z3", "RELHUM", "CLOUD", "CLDICE", "CLDLIQ", "CONCLD", "DTCOND", &
    "DTV", "QRL", "QRS", "VD01", "DCQ", "CMFDT", "CMFDQ", "ZMDT", "ZMDQ", "UU", "VV", "VU", "VT", &
    "VQ", "OMEGAT", "ICIMR", "ICWMR", "FICE", "EVAPPREC", "QT", "SL", "TTEND"]
  integer, parameter :: n3d = 34, n2d = 61, nvars = n3d + n2d, nlev = 26

  type(esmio_t) :: io
  type(esmio_file_t) :: file
  type(esmio_decomp_t) :: d3, d2
  integer :: rank, nranks, ierr, reps, iotasks, nlat, nlon, lat0, lat1, nl, n3, n2
  integer :: r, v, dtime, dlev, dlat, dlon, num_iotasks, fd, rc
  integer :: varids(nvars)
  logical :: fsync_file, keep
  character(len=4096) :: dir, path, backend
  character(len=128) :: settings
  character(len=:), allocatable :: io_settings
  character(len=32) :: name
  real(8) :: scale, t0, g0, gen, c, w0, wcall, own
  real(8), allocatable :: seconds(:), generate(:), write_call(:), binding(:)
  type(esmio_counter) :: lib0, lib1
  ! base* are not targets, so that the compiler knows a3 and a2 cannot alias them: the
  ! generation is then one vectorised pass (with base* as pointers gfortran goes through a
  ! temporary, twice the cost of C's loop).
  real(8), allocatable :: base3(:, :, :), base2(:, :)
  real(8), allocatable, target :: buf(:)
  real(8), pointer, contiguous :: a3(:, :, :), a2(:, :)
  integer(8), allocatable :: compdof(:)
  integer(8) :: data_bytes

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call parse_arguments()

  nlat = scaled(361, scale)
  nlon = scaled(576, scale)
  lat0 = int(int(nlat, 8) * rank / nranks)
  lat1 = int(int(nlat, 8) * (rank + 1) / nranks)
  nl = lat1 - lat0
  path = trim(dir)//"/cam_fvd_fortran.nc"
  if (trim(backend) == "netcdf4") then
    settings = "backend=netcdf4,format=netcdf4"
  else
    settings = "backend="//trim(backend)//",format=cdf5"
  end if

  call ok(esmio_init(MPI_COMM_WORLD, "num_iotasks="//itoa(iotasks), io), "esmio_init")
  ! Fortran order: field (lon, lat, lev), the rank's block of it held as A(lon, lev, lat).
  call ok(esmio_decomp_create_block(io, [nlon, nlat, nlev], [1, lat0 + 1, 1], &
                                    [nlon, nl, nlev], d3, mem_order=[1, 3, 2]), "decomp 3-D")
  call ok(esmio_decomp_create_block(io, [nlon, nlat], [1, lat0 + 1], [nlon, nl], d2), &
          "decomp 2-D")
  n3 = nlon * nlev * nl
  n2 = nlon * nl
  ! base: (1-based compdof - 1) = the C-order offset of the slot, times 1e-6 (Python's
  ! d.offsets * 1e-6, bit for bit).
  allocate (compdof(n3), base3(nlon, nlev, nl), base2(nlon, nl), buf(max(1, n3)))
  call ok(esmio_decomp_inq_compdof(d3, compdof), "compdof 3-D")
  base3 = reshape(real(compdof - 1, 8) * 1.0d-6, shape(base3))
  call ok(esmio_decomp_inq_compdof(d2, compdof(1:n2)), "compdof 2-D")
  base2 = reshape(real(compdof(1:n2) - 1, 8) * 1.0d-6, shape(base2))
  deallocate (compdof)
  a3(1:nlon, 1:nlev, 1:nl) => buf(1:n3)
  a2(1:nlon, 1:nl) => buf(1:n2)

  allocate (seconds(reps), generate(reps), write_call(reps), binding(reps))
  do r = 1, reps
    call ok(esmio_trace_counter(io, "write_darray", lib0), "esmio_trace_counter")
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    gen = 0
    wcall = 0
    call ok(esmio_create(io, trim(path), trim(settings), file), "esmio_create")
    call ok(esmio_def_dim(file, "time", ESMIO_UNLIMITED, dtime), "def_dim time")
    call ok(esmio_def_dim(file, "lev", nlev, dlev), "def_dim lev")
    call ok(esmio_def_dim(file, "lat", nlat, dlat), "def_dim lat")
    call ok(esmio_def_dim(file, "lon", nlon, dlon), "def_dim lon")
    do v = 1, n3d
      call ok(esmio_def_var(file, trim(names3d(v)), ESMIO_FLOAT, [dlon, dlat, dlev, dtime], &
                            varids(v)), "def_var")
    end do
    do v = n3d + 1, nvars
      write (name, '(a,i2.2)') "FLD2D_", v - n3d - 1
      call ok(esmio_def_var(file, trim(name), ESMIO_FLOAT, [dlon, dlat, dtime], varids(v)), &
              "def_var")
    end do
    call ok(esmio_enddef(file), "enddef")
    do v = 1, nvars
      g0 = MPI_Wtime()
      c = real(1000 * (v - 1) + 0, 8)  ! field v - 1 (0-based), record t = 0
      if (v <= n3d) then
        a3 = base3 + c
      else
        a2 = base2 + c
      end if
      gen = gen + (MPI_Wtime() - g0)
      w0 = MPI_Wtime()
      if (v <= n3d) then
        rc = esmio_write_darray(file, varids(v), d3, a3, record=1)
      else
        rc = esmio_write_darray(file, varids(v), d2, a2, record=1)
      end if
      wcall = wcall + (MPI_Wtime() - w0)
      call ok(rc, "write_darray")
    end do
    call ok(esmio_close(file), "esmio_close")
    if (fsync_file .and. rank == 0) then
      fd = c_open(trim(path)//c_null_char, 0_c_int)  ! O_RDONLY
      if (fd < 0) then
        print '(a)', "cam_fvd_fortran: open for fsync failed"
      else
        if (c_fsync(fd) /= 0) print '(a)', "cam_fvd_fortran: fsync failed"
        rc = c_close(fd)
      end if
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    seconds(r) = MPI_Wtime() - t0
    call MPI_Allreduce(gen, generate(r), 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    ! The binding's own cost: write_darray timed by the caller minus the library's counter.
    call ok(esmio_trace_counter(io, "write_darray", lib1), "esmio_trace_counter")
    own = wcall - (lib1%seconds - lib0%seconds)
    call MPI_Allreduce(wcall, write_call(r), 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, &
                       ierr)
    call MPI_Allreduce(own, binding(r), 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    ! As the bench: each repetition creates a new file.
    if (rank == 0 .and. .not. (keep .and. r == reps)) rc = c_unlink(trim(path)//c_null_char)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call ok(esmio_decomp_free(d3), "free d3")
  call ok(esmio_decomp_free(d2), "free d2")
  call ok(esmio_inq_iotasks(io, num_iotasks=num_iotasks), "esmio_inq_iotasks")
  call ok(esmio_inq_settings(io, io_settings), "esmio_inq_settings")
  call ok(esmio_finalize(io), "esmio_finalize")

  if (rank == 0) then
    data_bytes = 4_8 * (n3d * nlev + n2d) * int(nlat, 8) * nlon
    print '(*(a))', '{"case": "cam-fvd", "binding": "fortran", "ranks": ', itoa(nranks), &
      ', "iotasks": ', itoa(num_iotasks), ', "backend": "', trim(backend), &
      '", "file_settings": "', trim(settings), '", "durable": ', &
      trim(merge("true ", "false", fsync_file)), ', "shape": [', itoa(nlev), ', ', itoa(nlat), ', ', &
      itoa(nlon), '], "fields": [', itoa(n3d), ', ', itoa(n2d), '], "records": 1, "bytes": ', &
      itoa8(data_bytes), ', "reps": ', itoa(reps), ', "seconds": ', list(seconds), &
      ', "median_s": ', fixed(median(seconds), 6), ', "median_MiB_s": ', &
      fixed(real(data_bytes, 8) / 1048576.0d0 / median(seconds), 1), ', "generate_s": ', &
      list(generate), ', "write_call_s": ', list(write_call), ', "binding_s": ', list(binding), &
      ', "settings": "', io_settings, '"}'
  end if
  call MPI_Finalize(ierr)

contains

  subroutine parse_arguments()
    integer :: n, k, eq
    character(len=4096) :: arg, key, val
    reps = 5
    dir = "."
    backend = "pnetcdf"
    iotasks = 0
    scale = 1.0d0
    fsync_file = .false.
    keep = .false.
    n = command_argument_count()
    k = 0
    do while (k < n)
      k = k + 1
      ierr = 0
      call get_command_argument(k, arg)
      eq = index(arg, "=")
      if (eq > 0) then
        key = arg(1:eq - 1)
        val = arg(eq + 1:)
      else
        key = arg
        val = ""
      end if
      if (trim(key) == "--fsync" .and. eq == 0) then
        fsync_file = .true.
        cycle
      else if (trim(key) == "--keep" .and. eq == 0) then
        keep = .true.
        cycle
      end if
      if (eq == 0) then
        if (k == n) call usage(trim(arg))
        k = k + 1
        call get_command_argument(k, val)
      end if
      select case (trim(key))
      case ("--reps")
        read (val, *, iostat=ierr) reps
      case ("--dir")
        dir = val
      case ("--backend")
        backend = val
      case ("--iotasks")
        read (val, *, iostat=ierr) iotasks
      case ("--scale")
        read (val, *, iostat=ierr) scale
      case default
        call usage(trim(arg))
      end select
      if (ierr /= 0) call usage(trim(arg))
    end do
    if (reps < 1 .or. scale <= 0) call usage("--reps must be >= 1 and --scale > 0")
    if (trim(backend) /= "pnetcdf" .and. trim(backend) /= "netcdf4") call usage("unknown --backend")
  end subroutine

  subroutine usage(why)
    character(len=*), intent(in) :: why
    write (0, '(a)') "cam_fvd_fortran: "//why
    write (0, '(a)') "usage: cam_fvd_fortran [--reps N] [--dir DIR] [--backend pnetcdf|netcdf4] "// &
      "[--iotasks N] [--scale X] [--fsync] [--keep]"
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end subroutine

  subroutine ok(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: e
    if (code == ESMIO_NOERR) return
    write (0, '(a)') "cam_fvd_fortran: "//what//": "//esmio_strerror(code)//" ("// &
      esmio_last_error()//")"
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine

  ! Half away from zero, as esmio-bench's llround (and the Python script's).
  integer function scaled(n, s)
    integer, intent(in) :: n
    real(8), intent(in) :: s
    scaled = max(1, nint(n * s))
  end function

  function itoa(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    character(len=16) :: b
    write (b, '(i0)') n
    s = trim(b)
  end function

  function itoa8(n) result(s)
    integer(8), intent(in) :: n
    character(len=:), allocatable :: s
    character(len=24) :: b
    write (b, '(i0)') n
    s = trim(b)
  end function

  ! x with d decimals (C's %.df).
  function fixed(x, d) result(s)
    real(8), intent(in) :: x
    integer, intent(in) :: d
    character(len=:), allocatable :: s
    character(len=40) :: b
    character(len=16) :: f
    write (f, '(a,i0,a)') "(f40.", d, ")"
    write (b, f) x
    s = trim(adjustl(b))
  end function

  function list(x) result(s)
    real(8), intent(in) :: x(:)
    character(len=:), allocatable :: s
    integer :: k
    s = "["
    do k = 1, size(x)
      if (k > 1) s = s//", "
      s = s//fixed(x(k), 6)
    end do
    s = s//"]"
  end function

  ! Python's statistics.median.
  real(8) function median(x)
    real(8), intent(in) :: x(:)
    real(8) :: s(size(x)), t
    integer :: j, k, m
    s = x
    do j = 2, size(s)  ! insertion sort: a handful of values
      t = s(j)
      k = j - 1
      do while (k >= 1)
        if (s(k) <= t) exit
        s(k + 1) = s(k)
        k = k - 1
      end do
      s(k + 1) = t
    end do
    m = size(s)
    if (mod(m, 2) == 1) then
      median = s(m / 2 + 1)
    else
      median = 0.5d0 * (s(m / 2) + s(m / 2 + 1))
    end if
  end function

end program cam_fvd_fortran
