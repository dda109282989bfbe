! The Fortran binding end to end: writes a small history file the way a model would (lat bands
! held as A(lon, lev, lat), a PIO-style compdof map, coordinates, attributes, records), reads it
! back through other decompositions, lists it by name, and checks every error path of the
! binding on every rank. fortran_c_writer.c writes the same file through the C API; the ctest compares
! the two (tests/fortran/compare.sh).
! Usage: mpirun -np N fortran_writer OUT.nc SETTINGS
program fortran_writer
  use mpi_f08
  use esmio
  implicit none
  integer, parameter :: nlon = 8, nlat = 6, nlev = 3, nrec = 2
  type(esmio_t) :: io
  type(esmio_file_t) :: file
  type(esmio_decomp_t) :: bands, columns, columns8, bands_read
  character(len=512) :: path, settings
  integer :: rank, nranks, ierr, failures, total
  integer :: dlon, dlat, dlev, dtime, vlon, vlat, vtime, vt, vps, vmask, vcount
  integer :: lat0, nlat_local, r, i, j, k, n
  real(8), allocatable :: a(:, :, :), back(:, :, :)
  real(4), allocatable :: ps(:), ps_back(:)
  integer(4), allocatable :: compdof4(:), mask(:)
  integer(8), allocatable :: compdof8(:), counts(:), got8(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, settings)
  failures = 0

  ! The type(MPI_Comm) communicator of mpi_f08; test_errors_f checks the integer one.
  call ok(esmio_init(MPI_COMM_WORLD, "", io), "init")

  ! Latitude bands: rank r holds lat0+1 .. lat0+nlat_local, stored A(lon, lev, lat).
  lat0 = (nlat * rank) / nranks
  nlat_local = (nlat * (rank + 1)) / nranks - lat0
  call ok(esmio_decomp_create_block(io, [nlon, nlat, nlev], [1, lat0 + 1, 1], &
                                    [nlon, nlat_local, nlev], bands, mem_order=[1, 3, 2]), &
          "decomp bands")
  ! Columns round-robin over ranks as a PIO compdof (integer(4) and integer(8) maps).
  allocate (compdof4(0))
  do n = rank + 1, nlon * nlat, nranks
    compdof4 = [compdof4, n]
  end do
  compdof8 = int(compdof4, 8)
  call ok(esmio_decomp_create(io, [nlon, nlat], compdof4, columns), "decomp columns i4")
  call ok(esmio_decomp_create(io, [nlon, nlat], compdof8, columns8), "decomp columns i8")

  ! ---- define
  call ok(esmio_create(io, trim(path), trim(settings), file), "create")
  call ok(esmio_def_dim(file, "time", ESMIO_UNLIMITED, dtime), "def_dim time")
  call ok(esmio_def_dim(file, "lev", nlev, dlev), "def_dim lev")
  call ok(esmio_def_dim(file, "lat", nlat, dlat), "def_dim lat")
  call ok(esmio_def_dim(file, "lon", nlon, dlon), "def_dim lon")
  call ok(esmio_def_var(file, "time", ESMIO_DOUBLE, [dtime], vtime), "def_var time")
  call ok(esmio_def_var(file, "lat", ESMIO_DOUBLE, [dlat], vlat), "def_var lat")
  call ok(esmio_def_var(file, "lon", ESMIO_FLOAT, [dlon], vlon), "def_var lon")
  call ok(esmio_def_var(file, "T", ESMIO_FLOAT, [dlon, dlat, dlev, dtime], vt), "def_var T")
  call ok(esmio_def_var(file, "PS", ESMIO_DOUBLE, [dlon, dlat, dtime], vps), "def_var PS")
  call ok(esmio_def_var(file, "mask", ESMIO_INT, [dlon, dlat], vmask), "def_var mask")
  call ok(esmio_def_var(file, "count", ESMIO_INT64, [dlon, dlat], vcount), "def_var count")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "title", "esmio Fortran binding test"), "title")
  call ok(esmio_put_att(file, ESMIO_GLOBAL, "step", 42), "step")
  call ok(esmio_put_att(file, vtime, "units", "days since 2000-01-01"), "time units")
  call ok(esmio_put_att(file, vt, "units", "K"), "T units")
  call ok(esmio_put_att(file, vt, "valid_range", [150.0, 350.0]), "T valid_range")
  call ok(esmio_put_att(file, vps, "scale", 1.0d0), "PS scale")
  call ok(esmio_put_att(file, vcount, "big", [2_8**40, -1_8]), "count big")
  ! A real(8) fill for a float variable: converted to the variable's type.
  call ok(esmio_def_var_fill(file, vt, -999.0d0), "T fill")
  call ok(esmio_def_var_fill(file, vmask, -1), "mask fill")
  call ok(esmio_enddef(file), "enddef")

  ! ---- write
  call ok(esmio_put_var(file, vlat, [(-75.0d0 + 30.0d0 * (j - 1), j = 1, nlat)]), "lat")
  call ok(esmio_put_var(file, vlon, [(45.0 * (i - 1), i = 1, nlon)]), "lon")
  allocate (a(nlon, nlev, nlat_local), ps(size(compdof4)))
  do r = 1, nrec
    call ok(esmio_put_vara(file, vtime, [r], [1], [0.5d0 * r]), "time")
    do j = 1, nlat_local
      do k = 1, nlev
        do i = 1, nlon
          a(i, k, j) = t_value(i, lat0 + j, k, r)
        end do
      end do
    end do
    call ok(esmio_write_darray(file, vt, bands, a, record=r), "write T")
    do n = 1, size(compdof4)
      call split(compdof4(n), i, j)
      ps(n) = real(ps_value(i, j, r), 4)
    end do
    ! PS is double in the file, written from real(4): converted on the way.
    call ok(esmio_write_darray(file, vps, columns, ps, record=r), "write PS")
  end do
  allocate (mask(size(compdof4)), counts(size(compdof8)))
  do n = 1, size(compdof4)
    call split(compdof4(n), i, j)
    mask(n) = 100 * i + j
    counts(n) = int(mask(n), 8) * 2_8**33
  end do
  call ok(esmio_write_darray(file, vmask, columns, mask), "write mask")
  call ok(esmio_write_darray(file, vcount, columns8, counts), "write count")
  call ok(esmio_close(file), "close")

  ! ---- read back through other decompositions, and list by name
  call ok(esmio_open(io, trim(path), ESMIO_NOWRITE, trim(settings), file), "open")
  call check_listing()
  call ok(esmio_decomp_create_block(io, [nlon, nlat, nlev], [1, lat0 + 1, 1], &
                                    [nlon, nlat_local, nlev], bands_read), "decomp bands_read")
  allocate (back(nlon, nlat_local, nlev), ps_back(size(compdof4)), got8(size(compdof8)))
  do r = 1, nrec
    call ok(esmio_read_darray(file, vt, bands_read, back, record=r), "read T")
    do k = 1, nlev
      do j = 1, nlat_local
        do i = 1, nlon
          call check(back(i, j, k) == real(real(t_value(i, lat0 + j, k, r), 4), 8), "T value")
        end do
      end do
    end do
    call ok(esmio_read_darray(file, vps, columns, ps_back, record=r), "read PS")
    do n = 1, size(compdof4)
      call split(compdof4(n), i, j)
      call check(ps_back(n) == real(ps_value(i, j, r), 4), "PS value")
    end do
  end do
  call ok(esmio_read_darray(file, vcount, columns8, got8), "read count")
  call check(all(got8 == counts), "count values (int64 past 2^32)")
  call check_attributes()
  call check_errors()
  call ok(esmio_close(file), "close reopened")
  call ok(esmio_decomp_free(bands), "free bands")
  call ok(esmio_decomp_free(bands_read), "free bands_read")
  call ok(esmio_decomp_free(columns), "free columns")
  call ok(esmio_decomp_free(columns8), "free columns8")
  call ok(esmio_finalize(io), "finalize")
  ierr = esmio_finalize(io)
  call expect_all(ierr, ESMIO_EBADID, "finalize twice")

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,a)', "fortran_writer on ", nranks, " ranks: ", &
    merge("passed", "FAILED", total == 0)
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  real(8) function t_value(i, j, k, r)
    integer, intent(in) :: i, j, k, r
    t_value = 1000.0d0 * r + 100.0d0 * k + 10.0d0 * j + i + 0.125d0
  end function

  real(8) function ps_value(i, j, r)
    integer, intent(in) :: i, j, r
    ps_value = 1.0d5 + 10.0d0 * r + 0.25d0 * j + i
  end function

  ! (lon, lat) of a 1-based linear index over (nlon, nlat).
  subroutine split(index, i, j)
    integer(4), intent(in) :: index
    integer, intent(out) :: i, j
    i = mod(index - 1, nlon) + 1
    j = (index - 1) / nlon + 1
  end subroutine

  subroutine check_listing()
    integer :: ndims, nvars, unlim, natts, xtype, nd, ids(4), len
    character(len=ESMIO_MAX_NAME) :: name
    call ok(esmio_inq_ndims(file, ndims), "inq_ndims")
    call ok(esmio_inq_nvars(file, nvars), "inq_nvars")
    call ok(esmio_inq_unlimdim(file, unlim), "inq_unlimdim")
    call check(ndims == 4 .and. nvars == 7 .and. unlim == dtime, "counts and unlimited dim")
    call ok(esmio_inq_dimname(file, dlat, name), "inq_dimname")
    call check(name == "lat", "dimname lat: "//trim(name))
    call ok(esmio_inq_varname(file, vt, name), "inq_varname")
    call check(name == "T", "varname T: "//trim(name))
    call ok(esmio_inq_var(file, vt, xtype, nd, ids), "inq_var")
    call check(xtype == ESMIO_FLOAT .and. nd == 4 .and. all(ids == [dlon, dlat, dlev, dtime]), &
               "T type and dimids in Fortran order")
    call ok(esmio_inq_dimlen(file, dtime, len), "inq_dimlen time")
    call check(len == nrec, "records")
    call ok(esmio_inq_natts(file, vt, natts), "inq_natts")
    call check(natts == 3, "T has units, valid_range, _FillValue")
    call ok(esmio_inq_attname(file, vt, 2, name), "inq_attname")
    call check(name == "valid_range", "attname 2 of T: "//trim(name))
    call ok(esmio_inq_varid(file, "count", n), "inq_varid")
    call check(n == vcount, "varid of count")
  end subroutine

  subroutine check_attributes()
    character(len=64) :: text
    real(4) :: range(2), fill
    integer :: step, xtype, len
    integer(8) :: big(2)
    call ok(esmio_get_att(file, ESMIO_GLOBAL, "title", text), "get title")
    call check(text == "esmio Fortran binding test", "title: "//trim(text))
    call ok(esmio_get_att(file, ESMIO_GLOBAL, "step", step), "get step")
    call check(step == 42, "step")
    call ok(esmio_inq_att(file, vt, "valid_range", xtype, len), "inq_att")
    call check(xtype == ESMIO_FLOAT .and. len == 2, "valid_range type and length")
    call ok(esmio_get_att(file, vt, "valid_range", range), "get valid_range")
    call check(all(range == [150.0, 350.0]), "valid_range")
    call ok(esmio_get_att(file, vt, "_FillValue", fill), "get T fill")
    call check(fill == -999.0, "T fill converted from real(8)")
    call ok(esmio_get_att(file, vcount, "big", big), "get big")
    call check(all(big == [2_8**40, -1_8]), "int64 attribute")
  end subroutine

  ! Every error of the binding is the C library's, the same on every rank.
  subroutine check_errors()
    type(esmio_file_t) :: closed
    type(esmio_decomp_t) :: freed
    real(8) :: short(2), values(1)
    character(len=4) :: small
    integer :: id
    call expect_all(esmio_read_darray(file, vt, bands_read, short, record=1), ESMIO_EBUFSIZE, &
                    "array shorter than the decomposition")
    call expect_all(esmio_read_darray(file, vt, bands_read, back, record=9), ESMIO_ERECORD, &
                    "record beyond the data")
    call expect_all(esmio_get_vara(file, vlat, [1, 1], [1, 1], values), ESMIO_EINVAL, &
                    "start and count of the wrong length")
    call expect_all(esmio_get_vara(file, vlat, [1], [2], values), ESMIO_EINVAL, &
                    "count larger than the array")
    call expect_all(esmio_get_att(file, vt, "missing", values), ESMIO_ENOTATT, &
                    "missing attribute")
    call expect_all(esmio_get_att(file, ESMIO_GLOBAL, "title", small), ESMIO_EINVAL, &
                    "text attribute longer than the string")
    call expect_all(esmio_get_att(file, vt, "valid_range", values), ESMIO_EINVAL, &
                    "numeric attribute of another length")
    call expect_all(esmio_inq_attname(file, vt, 2, small), ESMIO_EINVAL, "attname too long")
    call expect_all(esmio_inq_attname(file, vt, 7, small), ESMIO_ENOTATT, "attnum 7")
    call expect_all(esmio_inq_varid(file, "nothing", id), ESMIO_ENOTVAR, "missing variable")
    call expect_all(esmio_write_darray(file, vt, bands_read, back, record=1), ESMIO_EPERM, &
                    "write to a file opened read-only")
    ! A handle that was never created, a freed decomposition.
    call expect_all(esmio_sync(closed), ESMIO_EBADID, "never-opened file")
    call ok(esmio_decomp_create(io, [nlon, nlat], compdof4, freed), "decomp to free")
    call ok(esmio_decomp_free(freed), "free")
    call expect_all(esmio_read_darray(file, vps, freed, ps_back, record=1), ESMIO_EBADID, &
                    "freed decomposition")
    ! A copy of a handle that is then closed.
    call ok(esmio_open(io, trim(path), ESMIO_NOWRITE, trim(settings), closed), "open copy")
    call ok(esmio_close(closed), "close copy")
    call expect_all(esmio_read_darray(closed, vps, columns, ps_back, record=1), ESMIO_EBADID, &
                    "closed file")
  end subroutine

  subroutine ok(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    integer :: ierr2
    if (code /= ESMIO_NOERR) then
      print '(a,i0,a,a,a,a,a,a)', "[rank ", rank, "] ", what, ": ", esmio_strerror(code), ": ", &
        esmio_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr2)
    end if
  end subroutine

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      failures = failures + 1
      print '(a,i0,a,a)', "[rank ", rank, "] FAIL ", what
    end if
  end subroutine

  ! The expected code here and the same code on every rank.
  subroutine expect_all(code, want, what)
    integer, intent(in) :: code, want
    character(len=*), intent(in) :: what
    integer :: lo, hi, ierr2
    call check(code == want, what//": got "//esmio_strerror(code)//": "//esmio_last_error())
    call MPI_Allreduce(code, lo, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr2)
    call MPI_Allreduce(code, hi, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr2)
    call check(lo == hi, what//": ranks returned different codes")
  end subroutine
end program fortran_writer
