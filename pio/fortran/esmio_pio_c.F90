! The C layer's functions (include/pio.h) that the module pio calls, as ISO_C_BINDING
! interfaces, one to one: C ids (0-based), C dimension order, NUL-terminated names. Private to
! the module pio (pio/fortran/pio.F90), which converts from what a Fortran model passes.
module esmio_pio_c
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_char, c_ptr, c_bool
  implicit none
  private
  public :: PIOc_Init_Intracomm_from_F90, PIOc_finalize, PIOc_Set_IOSystem_Error_Handling
  public :: PIOc_Set_File_Error_Handling, PIOc_set_rearr_opts, PIOc_iosystem_is_active
  public :: PIOc_set_hint, PIOc_get_numiotasks, PIOc_iam_iotask, PIOc_iotype_available
  public :: PIOc_set_buffer_size_limit, PIOc_set_log_level, PIOc_strerror
  public :: PIOc_InitDecomp, PIOc_freedecomp, PIOc_get_local_array_size
  public :: PIOc_createfile, PIOc_openfile, PIOc_closefile, PIOc_sync, PIOc_enddef, PIOc_redef
  public :: PIOc_File_is_Open, PIOc_set_fill
  public :: PIOc_def_dim, PIOc_def_var, PIOc_def_var_deflate, PIOc_def_var_chunking
  public :: PIOc_def_var_fill
  public :: PIOc_inq_ndims, PIOc_inq_nvars, PIOc_inq_natts, PIOc_inq_unlimdim, PIOc_inq_dimid
  public :: PIOc_inq_dimlen, PIOc_inq_dimname, PIOc_inq_varid, PIOc_inq_varname
  public :: PIOc_inq_vartype, PIOc_inq_varndims, PIOc_inq_vardimid, PIOc_inq_varnatts
  public :: PIOc_inq_att, PIOc_inq_attlen
  public :: PIOc_put_att, PIOc_put_att_text, PIOc_get_att_text
  public :: PIOc_get_att_int, PIOc_get_att_longlong, PIOc_get_att_float, PIOc_get_att_double
  public :: PIOc_setframe, PIOc_advanceframe, PIOc_write_darray, PIOc_read_darray
  public :: PIOc_put_var_int, PIOc_put_var_longlong, PIOc_put_var_float, PIOc_put_var_double
  public :: PIOc_get_var_int, PIOc_get_var_longlong, PIOc_get_var_float, PIOc_get_var_double
  public :: PIOc_put_vara_int, PIOc_put_vara_longlong, PIOc_put_vara_float
  public :: PIOc_put_vara_double, PIOc_get_vara_int, PIOc_get_vara_longlong
  public :: PIOc_get_vara_float, PIOc_get_vara_double
  public :: PIOc_put_var_text, PIOc_get_var_text, PIOc_put_vara_text, PIOc_get_vara_text

  ! The most dimensions a variable of the C layer can have (ESMIO_MAX_DIMS of esmio.h).
  integer, parameter, public :: max_dims = 16

  interface
    ! ---- I/O systems and errors
    integer(c_int) function PIOc_Init_Intracomm_from_F90(f90_comp_comm, num_iotasks, stride, &
      base, rearr, rearr_opts, iosysidp) bind(C, name="PIOc_Init_Intracomm_from_F90")
      import :: c_int, c_ptr
      integer(c_int), value :: f90_comp_comm, num_iotasks, stride, base, rearr
      type(c_ptr), value :: rearr_opts
      integer(c_int), intent(out) :: iosysidp
    end function
    integer(c_int) function PIOc_finalize(iosysid) bind(C, name="PIOc_finalize")
      import :: c_int
      integer(c_int), value :: iosysid
    end function
    integer(c_int) function PIOc_Set_IOSystem_Error_Handling(iosysid, method) &
      bind(C, name="PIOc_Set_IOSystem_Error_Handling")
      import :: c_int
      integer(c_int), value :: iosysid, method
    end function
    integer(c_int) function PIOc_Set_File_Error_Handling(ncid, method) &
      bind(C, name="PIOc_Set_File_Error_Handling")
      import :: c_int
      integer(c_int), value :: ncid, method
    end function
    integer(c_int) function PIOc_set_rearr_opts(iosysid, comm_type, fcd, enable_hs_c2i, &
      enable_isend_c2i, max_pend_req_c2i, enable_hs_i2c, enable_isend_i2c, max_pend_req_i2c) &
      bind(C, name="PIOc_set_rearr_opts")
      import :: c_int, c_bool
      integer(c_int), value :: iosysid, comm_type, fcd, max_pend_req_c2i, max_pend_req_i2c
      logical(c_bool), value :: enable_hs_c2i, enable_isend_c2i, enable_hs_i2c, enable_isend_i2c
    end function
    integer(c_int) function PIOc_iosystem_is_active(iosysid, active) &
      bind(C, name="PIOc_iosystem_is_active")
      import :: c_int, c_bool
      integer(c_int), value :: iosysid
      logical(c_bool), intent(out) :: active
    end function
    integer(c_int) function PIOc_set_hint(iosysid, hint, hintval) bind(C, name="PIOc_set_hint")
      import :: c_int, c_char
      integer(c_int), value :: iosysid
      character(kind=c_char), intent(in) :: hint(*), hintval(*)
    end function
    integer(c_int) function PIOc_get_numiotasks(iosysid, numiotasks) &
      bind(C, name="PIOc_get_numiotasks")
      import :: c_int
      integer(c_int), value :: iosysid
      integer(c_int), intent(out) :: numiotasks
    end function
    integer(c_int) function PIOc_iam_iotask(iosysid, ioproc) bind(C, name="PIOc_iam_iotask")
      import :: c_int, c_bool
      integer(c_int), value :: iosysid
      logical(c_bool), intent(out) :: ioproc
    end function
    integer(c_int) function PIOc_iotype_available(iotype) bind(C, name="PIOc_iotype_available")
      import :: c_int
      integer(c_int), value :: iotype
    end function
    integer(c_int64_t) function PIOc_set_buffer_size_limit(limit) &
      bind(C, name="PIOc_set_buffer_size_limit")
      import :: c_int64_t
      integer(c_int64_t), value :: limit
    end function
    integer(c_int) function PIOc_set_log_level(level) bind(C, name="PIOc_set_log_level")
      import :: c_int
      integer(c_int), value :: level
    end function
    ! errstr: room for PIO_MAX_NAME + 1 characters.
    integer(c_int) function PIOc_strerror(pioerr, errstr) bind(C, name="PIOc_strerror")
      import :: c_int, c_char
      integer(c_int), value :: pioerr
      character(kind=c_char), intent(out) :: errstr(*)
    end function

    ! ---- decompositions
    integer(c_int) function PIOc_InitDecomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, &
      ioidp, rearr, iostart, iocount) bind(C, name="PIOc_InitDecomp")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: iosysid, pio_type, ndims, maplen
      integer(c_int), intent(in) :: gdimlen(*)
      integer(c_int64_t), intent(in) :: compmap(*)
      integer(c_int), intent(out) :: ioidp
      type(c_ptr), value :: rearr, iostart, iocount
    end function
    integer(c_int) function PIOc_freedecomp(iosysid, ioid) bind(C, name="PIOc_freedecomp")
      import :: c_int
      integer(c_int), value :: iosysid, ioid
    end function
    integer(c_int) function PIOc_get_local_array_size(ioid) &
      bind(C, name="PIOc_get_local_array_size")
      import :: c_int
      integer(c_int), value :: ioid
    end function

    ! ---- files
    integer(c_int) function PIOc_createfile(iosysid, ncidp, iotype, fname, mode) &
      bind(C, name="PIOc_createfile")
      import :: c_int, c_char
      integer(c_int), value :: iosysid, mode
      integer(c_int), intent(out) :: ncidp
      integer(c_int), intent(inout) :: iotype
      character(kind=c_char), intent(in) :: fname(*)
    end function
    integer(c_int) function PIOc_openfile(iosysid, ncidp, iotype, fname, mode) &
      bind(C, name="PIOc_openfile")
      import :: c_int, c_char
      integer(c_int), value :: iosysid, mode
      integer(c_int), intent(out) :: ncidp
      integer(c_int), intent(inout) :: iotype
      character(kind=c_char), intent(in) :: fname(*)
    end function
    integer(c_int) function PIOc_closefile(ncid) bind(C, name="PIOc_closefile")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function PIOc_sync(ncid) bind(C, name="PIOc_sync")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function PIOc_enddef(ncid) bind(C, name="PIOc_enddef")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function PIOc_redef(ncid) bind(C, name="PIOc_redef")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function PIOc_File_is_Open(ncid) bind(C, name="PIOc_File_is_Open")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function PIOc_set_fill(ncid, fillmode, old_modep) bind(C, name="PIOc_set_fill")
      import :: c_int
      integer(c_int), value :: ncid, fillmode
      integer(c_int), intent(out) :: old_modep
    end function

    ! ---- definitions
    integer(c_int) function PIOc_def_dim(ncid, name, len, idp) bind(C, name="PIOc_def_dim")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: len
      integer(c_int), intent(out) :: idp
    end function
    integer(c_int) function PIOc_def_var(ncid, name, xtype, ndims, dimidsp, varidp) &
      bind(C, name="PIOc_def_var")
      import :: c_int, c_char
      integer(c_int), value :: ncid, xtype, ndims
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(in) :: dimidsp(*)
      integer(c_int), intent(out) :: varidp
    end function
    integer(c_int) function PIOc_def_var_deflate(ncid, varid, shuffle, deflate, deflate_level) &
      bind(C, name="PIOc_def_var_deflate")
      import :: c_int
      integer(c_int), value :: ncid, varid, shuffle, deflate, deflate_level
    end function
    integer(c_int) function PIOc_def_var_chunking(ncid, varid, storage, chunksizesp) &
      bind(C, name="PIOc_def_var_chunking")
      import :: c_int, c_int64_t
      integer(c_int), value :: ncid, varid, storage
      integer(c_int64_t), intent(in) :: chunksizesp(*)
    end function
    integer(c_int) function PIOc_def_var_fill(ncid, varid, no_fill, fill_value) &
      bind(C, name="PIOc_def_var_fill")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid, no_fill
      type(c_ptr), value :: fill_value
    end function

    ! ---- inquiry
    integer(c_int) function PIOc_inq_ndims(ncid, ndimsp) bind(C, name="PIOc_inq_ndims")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: ndimsp
    end function
    integer(c_int) function PIOc_inq_nvars(ncid, nvarsp) bind(C, name="PIOc_inq_nvars")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: nvarsp
    end function
    integer(c_int) function PIOc_inq_natts(ncid, ngattsp) bind(C, name="PIOc_inq_natts")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: ngattsp
    end function
    integer(c_int) function PIOc_inq_unlimdim(ncid, unlimdimidp) &
      bind(C, name="PIOc_inq_unlimdim")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: unlimdimidp
    end function
    integer(c_int) function PIOc_inq_dimid(ncid, name, idp) bind(C, name="PIOc_inq_dimid")
      import :: c_int, c_char
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: idp
    end function
    integer(c_int) function PIOc_inq_dimlen(ncid, dimid, lenp) bind(C, name="PIOc_inq_dimlen")
      import :: c_int, c_int64_t
      integer(c_int), value :: ncid, dimid
      integer(c_int64_t), intent(out) :: lenp
    end function
    ! name: room for PIO_MAX_NAME + 1 characters.
    integer(c_int) function PIOc_inq_dimname(ncid, dimid, name) bind(C, name="PIOc_inq_dimname")
      import :: c_int, c_char
      integer(c_int), value :: ncid, dimid
      character(kind=c_char), intent(out) :: name(*)
    end function
    integer(c_int) function PIOc_inq_varid(ncid, name, varidp) bind(C, name="PIOc_inq_varid")
      import :: c_int, c_char
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: varidp
    end function
    integer(c_int) function PIOc_inq_varname(ncid, varid, name) bind(C, name="PIOc_inq_varname")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(out) :: name(*)
    end function
    integer(c_int) function PIOc_inq_vartype(ncid, varid, xtypep) bind(C, name="PIOc_inq_vartype")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: xtypep
    end function
    integer(c_int) function PIOc_inq_varndims(ncid, varid, ndimsp) &
      bind(C, name="PIOc_inq_varndims")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: ndimsp
    end function
    integer(c_int) function PIOc_inq_vardimid(ncid, varid, dimidsp) &
      bind(C, name="PIOc_inq_vardimid")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: dimidsp(*)
    end function
    integer(c_int) function PIOc_inq_varnatts(ncid, varid, nattsp) &
      bind(C, name="PIOc_inq_varnatts")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: nattsp
    end function
    integer(c_int) function PIOc_inq_att(ncid, varid, name, xtypep, lenp) &
      bind(C, name="PIOc_inq_att")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: xtypep
      integer(c_int64_t), intent(out) :: lenp
    end function
    integer(c_int) function PIOc_inq_attlen(ncid, varid, name, lenp) &
      bind(C, name="PIOc_inq_attlen")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(out) :: lenp
    end function

    ! ---- attributes: op holds len values of xtype (put); ip receives them converted (get)
    integer(c_int) function PIOc_put_att(ncid, varid, name, xtype, len, op) &
      bind(C, name="PIOc_put_att")
      import :: c_int, c_int64_t, c_char, c_ptr
      integer(c_int), value :: ncid, varid, xtype
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: len
      type(c_ptr), value :: op
    end function
    integer(c_int) function PIOc_put_att_text(ncid, varid, name, len, op) &
      bind(C, name="PIOc_put_att_text")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*), op(*)
      integer(c_int64_t), value :: len
    end function
    integer(c_int) function PIOc_get_att_text(ncid, varid, name, ip) &
      bind(C, name="PIOc_get_att_text")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      character(kind=c_char), intent(out) :: ip(*)
    end function
    integer(c_int) function PIOc_get_att_int(ncid, varid, name, ip) &
      bind(C, name="PIOc_get_att_int")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: ip
    end function
    integer(c_int) function PIOc_get_att_longlong(ncid, varid, name, ip) &
      bind(C, name="PIOc_get_att_longlong")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: ip
    end function
    integer(c_int) function PIOc_get_att_float(ncid, varid, name, ip) &
      bind(C, name="PIOc_get_att_float")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: ip
    end function
    integer(c_int) function PIOc_get_att_double(ncid, varid, name, ip) &
      bind(C, name="PIOc_get_att_double")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: ip
    end function
    integer(c_int) function PIOc_put_var_int(ncid, varid, buf) &
      bind(C, name="PIOc_put_var_int")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_vara_int(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_put_vara_int")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_var_int(ncid, varid, buf) &
      bind(C, name="PIOc_get_var_int")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_vara_int(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_get_vara_int")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_var_longlong(ncid, varid, buf) &
      bind(C, name="PIOc_put_var_longlong")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_vara_longlong(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_put_vara_longlong")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_var_longlong(ncid, varid, buf) &
      bind(C, name="PIOc_get_var_longlong")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_vara_longlong(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_get_vara_longlong")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_var_float(ncid, varid, buf) &
      bind(C, name="PIOc_put_var_float")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_vara_float(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_put_vara_float")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_var_float(ncid, varid, buf) &
      bind(C, name="PIOc_get_var_float")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_vara_float(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_get_vara_float")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_var_double(ncid, varid, buf) &
      bind(C, name="PIOc_put_var_double")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_vara_double(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_put_vara_double")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_var_double(ncid, varid, buf) &
      bind(C, name="PIOc_get_var_double")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_get_vara_double(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_get_vara_double")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      type(c_ptr), value :: buf
    end function
    integer(c_int) function PIOc_put_var_text(ncid, varid, op) bind(C, name="PIOc_put_var_text")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: op(*)
    end function
    integer(c_int) function PIOc_get_var_text(ncid, varid, buf) bind(C, name="PIOc_get_var_text")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(inout) :: buf(*)
    end function
    integer(c_int) function PIOc_put_vara_text(ncid, varid, start, count, op) &
      bind(C, name="PIOc_put_vara_text")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      character(kind=c_char), intent(in) :: op(*)
    end function
    integer(c_int) function PIOc_get_vara_text(ncid, varid, start, count, buf) &
      bind(C, name="PIOc_get_vara_text")
      import :: c_int, c_int64_t, c_char
      integer(c_int), value :: ncid, varid
      integer(c_int64_t), intent(in) :: start(*), count(*)
      character(kind=c_char), intent(inout) :: buf(*)
    end function

    ! ---- decomposed data
    integer(c_int) function PIOc_setframe(ncid, varid, frame) bind(C, name="PIOc_setframe")
      import :: c_int
      integer(c_int), value :: ncid, varid, frame
    end function
    integer(c_int) function PIOc_advanceframe(ncid, varid) bind(C, name="PIOc_advanceframe")
      import :: c_int
      integer(c_int), value :: ncid, varid
    end function
    integer(c_int) function PIOc_write_darray(ncid, varid, ioid, arraylen, array, fillvalue) &
      bind(C, name="PIOc_write_darray")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid, ioid
      integer(c_int64_t), value :: arraylen
      type(c_ptr), value :: array, fillvalue
    end function
    integer(c_int) function PIOc_read_darray(ncid, varid, ioid, arraylen, array) &
      bind(C, name="PIOc_read_darray")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ncid, varid, ioid
      integer(c_int64_t), value :: arraylen
      type(c_ptr), value :: array
    end function
  end interface
end module esmio_pio_c
