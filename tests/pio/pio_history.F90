! PIO's Fortran interface as a CESM history writer uses it: `use pio`, `use mpi`, PIO_init, 1-based
! compdof maps with holes (history_case.F90), coordinates, attributes, 2-D and 3-D real(8) and
! real(4) fields on an unlimited time dimension over several frames (setframe, advanceframe),
! a real(8) field into a float variable, an integer field, a fixed field. Then the file is
! opened again and every value, attribute and inquiry checked through PIO_read_darray and
! friends, and an invalid id checked to return an error code under PIO_RETURN_ERROR (and, with
! abort, to end the job under PIO_INTERNAL_ERROR, the default).
! pio_history_native.F90 writes the same file through esmio's own Fortran module; the ctest
! compares the two with ncdump (compare_history.sh).
! Usage: mpirun -np N pio_history OUT.nc pnetcdf|netcdf|netcdf4p|abort
program pio_history
  use mpi
  use pio
  use history_case
  implicit none
  type(iosystem_desc_t) :: ios
  type(file_desc_t) :: file
  type(io_desc_t) :: iod3d, iod3r, iod2d, iod2i
  type(var_desc_t) :: vlon, vlat, vtime, vnstep, vntrac, vland, vmask, vt, vu, vps, vprect, vbad
  character(len=512) :: path, kind
  character(len=PIO_max_name) :: text
  integer :: rank, nranks, ierr, failures, total, iotype, niotasks, i, frame, n
  integer :: dlon, dlat, dlev, dtime, ndims, nvars, natts, unlimdim, length, dimids(4)
  integer :: ntrac, case_id
  integer(PIO_OFFSET_KIND) :: nrec
  integer, allocatable :: cols(:), dof2(:), mask(:, :), mask_back(:, :)
  integer(8), allocatable :: dof3(:)
  real(8), allocatable :: a3(:, :, :), b3(:, :, :), a2(:, :), b2(:, :), a1(:), b1(:), lat(:)
  real(4), allocatable :: u3(:, :, :), v3(:, :, :)
  real(8) :: dtime_att, time(1)
  real(4) :: version, valid_range(2)
  logical :: active

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, kind)
  iotype = PIO_iotype_pnetcdf
  if (kind == "netcdf") iotype = PIO_iotype_netcdf
  if (kind == "netcdf4p") iotype = PIO_iotype_netcdf4p
  failures = 0
  if (kind == "abort") call abort_mode()

  ! Half the tasks do I/O, every other one.
  niotasks = max(1, nranks / 2)
  call PIO_init(rank, MPI_COMM_WORLD, niotasks, 0, nranks / niotasks, PIO_rearr_box, ios, base=0)
  call check(ios%iosysid /= -1, "PIO_init")
  call PIO_set_hint(ios, "romio_cb_write", "enable")
  call pio_setdebuglevel(0)
  call ok(pio_set_rearr_opts(ios, PIO_rearr_comm_coll, PIO_rearr_comm_fc_2d_enable, .true., &
                             .true., PIO_rearr_comm_unlimited_pend_req, .true., .true., 64), &
          "pio_set_rearr_opts")
  call PIO_getnumiotasks(ios, n)
  call check(n == niotasks, "PIO_getnumiotasks")
  ! Tasks 0, stride, 2 stride, ... do I/O.
  call check(pio_iam_iotask(ios) .eqv. (mod(rank, nranks / niotasks) == 0 .and. &
                                        rank / (nranks / niotasks) < niotasks), "pio_iam_iotask")
  call check(PIO_iotype_available(PIO_iotype_pnetcdf), "PIO_iotype_available")

  cols = local_columns(rank, nranks)
  call maps(cols, dof2, dof3)
  allocate (a3(pcols, nlev, nchunks_of(cols)), b3(pcols, nlev, nchunks_of(cols)))
  allocate (u3(pcols, nlev, nchunks_of(cols)), v3(pcols, nlev, nchunks_of(cols)))
  allocate (a2(pcols, nchunks_of(cols)), b2(pcols, nchunks_of(cols)))
  allocate (mask(pcols, nchunks_of(cols)), mask_back(pcols, nchunks_of(cols)))
  ! integer(8) maps for the 3-D fields, integer(4) for the 2-D ones.
  call PIO_initdecomp(ios, PIO_double, [nlon, nlat, nlev], dof3, iod3d)
  call PIO_initdecomp(ios, PIO_real, [nlon, nlat, nlev], dof3, iod3r)
  call PIO_initdecomp(ios, PIO_double, [nlon, nlat], dof2, iod2d)
  call PIO_initdecomp(ios, PIO_int, [nlon, nlat], dof2, iod2i)
  call check(PIO_get_local_array_size(iod2d) == size(dof2), "PIO_get_local_array_size")

  ! ---- define
  call ok(PIO_createfile(ios, file, iotype, trim(path), PIO_clobber), "PIO_createfile")
  call ok(PIO_def_dim(file, "lon", nlon, dlon), "def_dim lon")
  call ok(PIO_def_dim(file, "lat", int(nlat, PIO_OFFSET_KIND), dlat), "def_dim lat")
  call ok(PIO_def_dim(file, "lev", nlev, dlev), "def_dim lev")
  call ok(PIO_def_dim(file, "time", PIO_unlimited, dtime), "def_dim time")
  call ok(PIO_def_var(file, "lon", PIO_double, [dlon], vlon), "def_var lon")
  call ok(PIO_def_var(file, "lat", PIO_double, [dlat], vlat), "def_var lat")
  call ok(PIO_def_var(file, "time", PIO_double, [dtime], vtime), "def_var time")
  call ok(PIO_def_var(file, "nstep", PIO_int, [dtime], vnstep), "def_var nstep")
  call ok(PIO_def_var(file, "ntrac", PIO_int, vntrac), "def_var ntrac")
  call ok(PIO_def_var(file, "LANDFRAC", PIO_double, [dlon, dlat], vland), "def_var LANDFRAC")
  call ok(PIO_def_var(file, "MASK", PIO_int, [dlon, dlat], vmask), "def_var MASK")
  call ok(PIO_def_var(file, "T", PIO_double, [dlon, dlat, dlev, dtime], vt), "def_var T")
  call ok(PIO_def_var(file, "U", PIO_real, [dlon, dlat, dlev, dtime], vu), "def_var U")
  call ok(PIO_def_var(file, "PS", PIO_double, [dlon, dlat, dtime], vps), "def_var PS")
  call ok(PIO_def_var(file, "PRECT", PIO_real, [dlon, dlat, dtime], vprect), "def_var PRECT")
  call ok(PIO_put_att(file, vtime, "units", "days since 2000-01-01 00:00:00"), "time units")
  call ok(PIO_put_att(file, vland, "_FillValue", fill8), "LANDFRAC fill")
  call ok(PIO_put_att(file, vmask, "_FillValue", -1), "MASK fill")
  call ok(PIO_put_att(file, vt, "units", "K"), "T units")
  call ok(PIO_put_att(file, vt, "long_name", "Temperature"), "T long_name")
  call ok(PIO_put_att(file, vt, "_FillValue", fill8), "T fill")
  call ok(PIO_put_att(file, vu, "units", "m/s"), "U units")
  call ok(PIO_put_att(file, vu, "valid_range", [-100.0, 100.0]), "U valid_range")
  call ok(PIO_put_att(file, vu, "_FillValue", fill4), "U fill")
  call ok(PIO_put_att(file, vps%varid, "units", "Pa"), "PS units")
  call ok(PIO_put_att(file, vps, "_FillValue", fill8), "PS fill")
  call ok(PIO_put_att(file, vprect, "_FillValue", fill4), "PRECT fill")
  call ok(PIO_put_att(file, PIO_global, "title", "CESM-like history through PIO's Fortran API"), &
          "title")
  call ok(PIO_put_att(file, PIO_global, "Conventions", "CF-1.0"), "Conventions")
  call ok(PIO_put_att(file, PIO_global, "case_id", 42), "case_id")
  call ok(PIO_put_att(file, PIO_global, "dtime", 1800.0d0), "dtime")
  call ok(PIO_put_att(file, PIO_global, "version", 2.5), "version")
  if (iotype == PIO_iotype_netcdf4p) then
    call ok(PIO_def_var_deflate(file, vt, 1, 1, 1), "def_var_deflate")
    call ok(PIO_def_var_chunking(file, vu, PIO_chunked, [nlon, nlat, 1, 1]), "def_var_chunking")
  end if
  call ok(PIO_enddef(file), "PIO_enddef")

  ! ---- write: coordinates and fixed fields, then the frames
  call ok(PIO_put_var(file, vlon, [(30.0d0 * (i - 1), i = 1, nlon)]), "put_var lon")
  call ok(PIO_put_var(file, vlat%varid, [(-70.0d0 + 20.0d0 * (i - 1), i = 1, nlat)]), "put_var lat")
  call ok(PIO_put_var(file, vntrac, 3), "put_var ntrac")
  call fill_2d(7, 0, cols, a2)
  a1 = reshape(a2, [size(a2)])  ! a rank-1 array through the 2-D decomposition
  call PIO_write_darray(file, vland, iod2d, a1, ierr, fillval=fill8)
  call ok(ierr, "write_darray LANDFRAC")
  call fill_2d_int(cols, mask)
  call PIO_write_darray(file, vmask, iod2i, mask, ierr)
  call ok(ierr, "write_darray MASK")
  do frame = 1, nframes
    call ok(PIO_put_var(file, vtime, [frame], [1], [0.5d0 * frame]), "put_var time")
    call ok(PIO_put_var(file, vnstep, [frame], [1], [48 * frame]), "put_var nstep")
    call PIO_setframe(file, vt, int(frame, PIO_OFFSET_KIND))
    call PIO_setframe(file, vu, int(frame, PIO_OFFSET_KIND))
    call PIO_setframe(file, vprect, int(frame, PIO_OFFSET_KIND))
    if (frame == 1) then
      call PIO_setframe(file, vps, 1_PIO_OFFSET_KIND)
    else
      call PIO_advanceframe(file, vps)
    end if
    call fill_3d(1, frame, cols, a3)
    call PIO_write_darray(file, vt, iod3d, a3, ierr, fillval=fill8)
    call ok(ierr, "write_darray T")
    call fill_3d(2, frame, cols, a3)
    u3 = real(a3, 4)
    call PIO_write_darray(file, vu, iod3r, u3, ierr)
    call ok(ierr, "write_darray U")
    call fill_2d(3, frame, cols, a2)
    call PIO_write_darray(file, vps, iod2d, a2, ierr)
    call ok(ierr, "write_darray PS")
    call fill_2d(4, frame, cols, a2)  ! real(8) in memory, float in the file
    call PIO_write_darray(file, vprect, iod2d, a2, ierr)
    call ok(ierr, "write_darray PRECT")
    call PIO_syncfile(file)
  end do
  call check(PIO_file_is_open(file), "PIO_file_is_open")
  call PIO_closefile(file)

  ! ---- read back
  call ok(PIO_openfile(ios, file, iotype, trim(path), PIO_nowrite), "PIO_openfile")
  call ok(PIO_inquire(file, nDimensions=ndims, nVariables=nvars, nAttributes=natts, &
                      unlimitedDimID=unlimdim), "PIO_inquire")
  call check(ndims == 4 .and. nvars == 11 .and. natts == 5 .and. unlimdim == 4, "PIO_inquire")
  call ok(PIO_inq_dimid(file, "lat", dlat), "inq_dimid lat")
  call ok(PIO_inq_dimlen(file, dlat, length), "inq_dimlen lat")
  call check(dlat == 2 .and. length == nlat, "lat dimension")
  call ok(PIO_inq_dimid(file, "time", dtime), "inq_dimid time")
  call ok(PIO_inq_dimlen(file, dtime, nrec), "inq_dimlen time")
  call check(nrec == nframes, "records")
  call ok(PIO_inq_varid(file, "T", vt), "inq_varid T")
  call ok(PIO_inq_varndims(file, vt, ndims), "inq_varndims T")
  call ok(PIO_inq_vardimid(file, vt, dimids), "inq_vardimid T")
  call check(ndims == 4 .and. all(dimids == [1, 2, 3, 4]), "T dimensions")
  call ok(PIO_inq_varid(file, "U", vu), "inq_varid U")
  call ok(PIO_inq_varid(file, "PS", vps), "inq_varid PS")
  call ok(PIO_inq_varid(file, "PRECT", vprect), "inq_varid PRECT")
  call ok(PIO_inq_varid(file, "LANDFRAC", vland), "inq_varid LANDFRAC")
  call ok(PIO_inq_varid(file, "MASK", vmask), "inq_varid MASK")
  call ok(PIO_inq_varid(file, "lat", vlat), "inq_varid lat")
  call ok(PIO_inq_varid(file, "time", vtime), "inq_varid time")
  call ok(PIO_inq_varid(file, "ntrac", vntrac), "inq_varid ntrac")
  call ok(PIO_get_att(file, PIO_global, "title", text), "get_att title")
  call check(text == "CESM-like history through PIO's Fortran API", "title")
  call ok(PIO_get_att(file, PIO_global, "case_id", case_id), "get_att case_id")
  call ok(PIO_get_att(file, PIO_global, "dtime", dtime_att), "get_att dtime")
  call ok(PIO_get_att(file, PIO_global, "version", version), "get_att version")
  call check(case_id == 42 .and. dtime_att == 1800.0d0 .and. version == 2.5, "global attributes")
  call ok(PIO_get_att(file, vu, "valid_range", valid_range), "get_att valid_range")
  call ok(PIO_get_att(file, vt, "units", text), "get_att T units")
  call check(all(valid_range == [-100.0, 100.0]) .and. text == "K", "variable attributes")
  allocate (lat(nlat))
  call ok(PIO_get_var(file, vlat, lat), "get_var lat")
  call check(all(lat == [(-70.0d0 + 20.0d0 * (i - 1), i = 1, nlat)]), "lat")
  call ok(PIO_get_var(file, vntrac, ntrac), "get_var ntrac")
  call ok(PIO_get_var(file, vtime, [2], [1], time), "get_var time")
  call check(ntrac == 3 .and. time(1) == 1.0d0, "ntrac and time")

  allocate (b1(size(a1)))
  call PIO_read_darray(file, vland, iod2d, b1, ierr)
  call ok(ierr, "read_darray LANDFRAC")
  call fill_2d(7, 0, cols, a2)
  call check(all(b1 == reshape(holes_zero_2d(a2), [size(a2)])), "LANDFRAC values")
  call check_block_read(file, vland)
  call PIO_read_darray(file, vmask, iod2i, mask_back, ierr)
  call ok(ierr, "read_darray MASK")
  call check(all(mask_back == merge(mask, 0, reshape(dof2, shape(mask)) > 0)), "MASK values")
  do frame = 1, nframes
    call PIO_setframe(file, vt, int(frame, PIO_OFFSET_KIND))
    call PIO_setframe(file, vu, int(frame, PIO_OFFSET_KIND))
    call PIO_setframe(file, vps, int(frame, PIO_OFFSET_KIND))
    call PIO_setframe(file, vprect, int(frame, PIO_OFFSET_KIND))
    call PIO_read_darray(file, vt, iod3d, b3, ierr)
    call ok(ierr, "read_darray T")
    call fill_3d(1, frame, cols, a3)
    call check(all(b3 == holes_zero_3d(a3)), "T values")
    call PIO_read_darray(file, vu, iod3r, v3, ierr)
    call ok(ierr, "read_darray U")
    call fill_3d(2, frame, cols, a3)
    call check(all(v3 == real(holes_zero_3d(a3), 4)), "U values")
    call PIO_read_darray(file, vps, iod2d, b2, ierr)
    call ok(ierr, "read_darray PS")
    call fill_2d(3, frame, cols, a2)
    call check(all(b2 == holes_zero_2d(a2)), "PS values")
    call PIO_read_darray(file, vprect, iod2d, b2, ierr)
    call ok(ierr, "read_darray PRECT")
    call fill_2d(4, frame, cols, a2)
    call check(all(b2 == real(real(holes_zero_2d(a2), 4), 8)), "PRECT values")
  end do

  ! ---- errors: under PIO_RETURN_ERROR an invalid id returns a code, on every task
  call pio_seterrorhandling(file, PIO_return_error)
  ierr = PIO_inq_varndims(file, 999, n)
  call check(ierr /= PIO_noerr, "an invalid varid returns an error code")
  ierr = PIO_inq_varid(file, "no_such_variable", vbad)
  call check(ierr == PIO_enotvar, "an unknown variable name returns PIO_enotvar")
  vbad%varid = 999
  call PIO_read_darray(file, vbad, iod2d, b2, ierr)
  call check(ierr /= PIO_noerr, "read_darray of an invalid varid returns an error code")
  text = ""
  ierr = PIO_strerror(PIO_enotvar, text)
  call check(ierr == PIO_noerr .and. len_trim(text) > 0, "PIO_strerror")
  call pio_seterrorhandling(ios, PIO_internal_error)
  call PIO_closefile(file)

  call text_variables(trim(path)//".text.nc")

  call PIO_freedecomp(ios, iod3d)
  call PIO_freedecomp(ios, iod3r)
  call PIO_freedecomp(ios, iod2d)
  call PIO_freedecomp(ios, iod2i)
  call pio_iosystem_is_active(ios, active)
  call check(active, "pio_iosystem_is_active")
  call PIO_finalize(ios, ierr)
  call ok(ierr, "PIO_finalize")
  call check(ios%iosysid == -1, "PIO_finalize forgets the I/O system")

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', "PASS: ", nranks, " tasks wrote and read back the history file through pio"
    else
      print '(a,i0,a)', "FAIL: ", total, " checks failed"
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine ok(code, what)
    integer, intent(in) :: code
    character(len=*), intent(in) :: what
    character(len=PIO_max_name) :: message
    integer :: rc
    if (code == PIO_noerr) return
    rc = PIO_strerror(code, message)
    print '(a,i0,5a,i0,a)', "rank ", rank, ": ", what, " failed: ", trim(message), " (", code, ")"
    failures = failures + 1
  end subroutine

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (condition) return
    print '(a,i0,3a)', "rank ", rank, ": ", what, " differs"
    failures = failures + 1
  end subroutine

  ! PIO_internal_error, the default: a failing call ends the job with a message naming it.
  subroutine abort_mode()
    type(var_desc_t) :: missing
    call PIO_init(rank, MPI_COMM_WORLD, 1, 0, 1, PIO_rearr_box, ios)
    ierr = PIO_createfile(ios, file, PIO_iotype_pnetcdf, trim(path))
    ierr = PIO_inq_varid(file, "no_such_variable", missing)
    print '(a,i0,a)', "rank ", rank, ": still running after a failed call under PIO_internal_error"
    call MPI_Finalize(ierr)
    stop
  end subroutine

  ! Text variables as CAM writes them (a date per frame, a case name), written and read back in
  ! a file of their own (esmio's Fortran module, which writes the comparison file, has no text
  ! variables).
  subroutine text_variables(text_path)
    character(len=*), intent(in) :: text_path
    type(file_desc_t) :: tfile
    type(var_desc_t) :: vdate, vcase
    integer :: dchars, dtime_t, dname
    character(len=8) :: dates(2), date
    character(len=16) :: case_name
    call ok(PIO_createfile(ios, tfile, iotype, text_path), "create text file")
    call ok(PIO_def_dim(tfile, "chars", 8, dchars), "def_dim chars")
    call ok(PIO_def_dim(tfile, "name", 16, dname), "def_dim name")
    call ok(PIO_def_dim(tfile, "time", PIO_unlimited, dtime_t), "def_dim time")
    call ok(PIO_def_var(tfile, "date_written", PIO_char, [dchars, dtime_t], vdate), "def_var date")
    call ok(PIO_def_var(tfile, "case", PIO_char, [dname], vcase), "def_var case")
    call ok(PIO_enddef(tfile), "enddef text file")
    call ok(PIO_put_var(tfile, vcase, "b.e21.B1850.f09"), "put_var case")
    call ok(PIO_put_var(tfile, vdate, [1, 1], [8, 1], ["01/01/00"]), "put_var date 1")
    call ok(PIO_put_var(tfile, vdate, [1, 2], [8, 1], "01/02/00"), "put_var date 2")
    call PIO_closefile(tfile)
    call ok(PIO_openfile(ios, tfile, iotype, text_path), "open text file")
    call ok(PIO_inq_varid(tfile, "date_written", vdate), "inq_varid date")
    call ok(PIO_inq_varid(tfile, "case", vcase), "inq_varid case")
    dates = ""
    case_name = ""
    call ok(PIO_get_var(tfile, vdate, dates), "get_var dates")
    call ok(PIO_get_var(tfile, vdate, [1, 2], [8, 1], date), "get_var date 2")
    call ok(PIO_get_var(tfile, vcase, case_name), "get_var case")
    call check(all(dates == ["01/01/00", "01/02/00"]) .and. date == "01/02/00", "dates")
    call check(case_name == "b.e21.B1850.f09", "case name")
    call PIO_closefile(tfile)
  end subroutine

  ! LANDFRAC read through a block decomposition (PIO_initdecomp with compstart and compcount):
  ! this task's band of latitudes, the points no task wrote holding the _FillValue.
  subroutine check_block_read(rfile, vard)
    type(file_desc_t), intent(inout) :: rfile
    type(var_desc_t), intent(inout) :: vard
    type(io_desc_t) :: band
    integer :: lat0, nlat_local, i, j, cell
    real(8), allocatable :: got(:, :), want(:, :)
    lat0 = (nlat * rank) / nranks
    nlat_local = (nlat * (rank + 1)) / nranks - lat0
    call PIO_initdecomp(ios, PIO_double, [nlon, nlat], [1_PIO_OFFSET_KIND, int(lat0 + 1, 8)], &
                        [int(nlon, PIO_OFFSET_KIND), int(nlat_local, 8)], band)
    allocate (got(nlon, nlat_local), want(nlon, nlat_local))
    do j = 1, nlat_local
      do i = 1, nlon
        cell = i + (lat0 + j - 1) * nlon
        want(i, j) = merge(fill8, value(7, cell, 0, 0), mod(cell, 7) == 3)
      end do
    end do
    call PIO_read_darray(rfile, vard, band, got, ierr)
    call ok(ierr, "read_darray LANDFRAC by latitude bands")
    call check(all(got == want), "LANDFRAC by latitude bands")
    call PIO_freedecomp(rfile, band)
  end subroutine

  ! What PIO_read_darray gives back: the written values, 0 in the slots of holes.
  function holes_zero_2d(a) result(b)
    real(8), intent(in) :: a(:, :)
    real(8) :: b(size(a, 1), size(a, 2))
    b = merge(a, 0.0d0, reshape(dof2, shape(a)) > 0)
  end function

  function holes_zero_3d(a) result(b)
    real(8), intent(in) :: a(:, :, :)
    real(8) :: b(size(a, 1), size(a, 2), size(a, 3))
    b = merge(a, 0.0d0, reshape(dof3, shape(a)) > 0)
  end function
end program pio_history
