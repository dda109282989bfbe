! PIO 2's Fortran procedures for definitions and inquiries (PIO's pio_nf), over the C layer
! (include/pio.h): ids 1-based, dimension lists in Fortran order (fastest first, the record
! dimension last), names blank-padded. A few checks keep the C calls inside the caller's arrays
! (docs/pio.md); they return PIO_einval without calling C.
module esmio_pio_nf
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_char, c_null_char
  use esmio_pio_types
  use esmio_pio_c
  use esmio_pio_strings
  implicit none
  private

  public :: PIO_def_dim, PIO_def_var, PIO_def_var_deflate, PIO_def_var_chunking
  public :: PIO_inquire, PIO_inq_dimid, PIO_inq_dimlen, PIO_inq_dimname, PIO_inq_unlimdim
  public :: PIO_inquire_dimension, PIO_inq_varid, PIO_inq_varname, PIO_inq_vartype
  public :: PIO_inq_varndims, PIO_inq_vardimid, PIO_inq_varnatts, PIO_inquire_variable
  public :: PIO_inq_att, PIO_inq_attlen

  interface PIO_def_dim
    module procedure def_dim_desc, def_dim_id, def_dim_int_desc, def_dim_int_id
  end interface
  interface PIO_def_var
    module procedure def_var_0d_desc, def_var_md_desc, def_var_0d_id, def_var_md_id
  end interface
  interface PIO_def_var_deflate
    module procedure def_var_deflate_desc, def_var_deflate_vid
  end interface
  interface PIO_def_var_chunking
    module procedure def_var_chunking_desc, def_var_chunking_vid
  end interface
  interface PIO_inquire
    module procedure inquire_desc, inquire_id
  end interface
  interface PIO_inq_dimid
    module procedure inq_dimid_desc, inq_dimid_id
  end interface
  interface PIO_inq_dimlen
    module procedure inq_dimlen_desc, inq_dimlen_id, inq_dimlen_desc_long, inq_dimlen_id_long
  end interface
  interface PIO_inq_dimname
    module procedure inq_dimname_desc, inq_dimname_id
  end interface
  interface PIO_inq_unlimdim
    module procedure inq_unlimdim_desc, inq_unlimdim_id
  end interface
  interface PIO_inquire_dimension
    module procedure inquire_dimension_desc
  end interface
  interface PIO_inq_varid
    module procedure inq_varid_desc, inq_varid_vid, inq_varid_id
  end interface
  interface PIO_inq_varname
    module procedure inq_varname_desc, inq_varname_vid
  end interface
  interface PIO_inq_vartype
    module procedure inq_vartype_desc, inq_vartype_vid
  end interface
  interface PIO_inq_varndims
    module procedure inq_varndims_desc, inq_varndims_vid
  end interface
  interface PIO_inq_vardimid
    module procedure inq_vardimid_desc, inq_vardimid_vid
  end interface
  interface PIO_inq_varnatts
    module procedure inq_varnatts_desc, inq_varnatts_vid
  end interface
  interface PIO_inquire_variable
    module procedure inquire_variable_desc, inquire_variable_vid
  end interface
  interface PIO_inq_att
    module procedure inq_att_desc, inq_att_vid
  end interface
  interface PIO_inq_attlen
    module procedure inq_attlen_desc, inq_attlen_vid
  end interface

contains

  ! ---- definitions --------------------------------------------------------------------------

  ! len: PIO_unlimited (0) for the record dimension. dimid: 1-based.
  integer function def_dim_id(ncid, name, len, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer(PIO_OFFSET_KIND), intent(in) :: len
    integer, intent(out) :: dimid
    ierr = PIOc_def_dim(ncid, c_str(name), len, dimid)
    dimid = merge(dimid + 1, -1, ierr == PIO_noerr)
  end function

  integer function def_dim_desc(file, name, len, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(PIO_OFFSET_KIND), intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(file%fh, name, len, dimid)
  end function

  integer function def_dim_int_id(ncid, name, len, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(ncid, name, int(len, PIO_OFFSET_KIND), dimid)
  end function

  integer function def_dim_int_desc(file, name, len, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(file%fh, name, int(len, PIO_OFFSET_KIND), dimid)
  end function

  ! dimids: 1-based, in Fortran order (the record dimension last). varid: 1-based.
  integer function def_var_md_id(ncid, name, type, dimids, varid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(in) :: type, dimids(:)
    integer, intent(out) :: varid
    integer(c_int) :: cdimids(max(size(dimids), 1))
    cdimids = 0
    cdimids(1:size(dimids)) = dimids(size(dimids):1:-1) - 1
    ierr = PIOc_def_var(ncid, c_str(name), type, size(dimids), cdimids, varid)
    varid = merge(varid + 1, -1, ierr == PIO_noerr)
  end function

  integer function def_var_0d_id(ncid, name, type, varid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(in) :: type
    integer, intent(out) :: varid
    integer :: none(0)
    ierr = def_var_md_id(ncid, name, type, none, varid)
  end function

  integer function def_var_md_desc(file, name, type, dimids, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: type, dimids(:)
    type(var_desc_t), intent(inout) :: vardesc
    ierr = def_var_md_id(file%fh, name, type, dimids, vardesc%varid)
    vardesc%ncid = file%fh
  end function

  integer function def_var_0d_desc(file, name, type, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: type
    type(var_desc_t), intent(inout) :: vardesc
    integer :: none(0)
    ierr = def_var_md_id(file%fh, name, type, none, vardesc%varid)
    vardesc%ncid = file%fh
  end function

  ! netCDF-4 files (iotypes netcdf4c, netcdf4p).
  integer function def_var_deflate_vid(file, varid, shuffle, deflate, deflate_level) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, shuffle, deflate, deflate_level
    ierr = PIOc_def_var_deflate(file%fh, varid - 1, shuffle, deflate, deflate_level)
  end function

  integer function def_var_deflate_desc(file, vardesc, shuffle, deflate, deflate_level) &
    result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: shuffle, deflate, deflate_level
    ierr = def_var_deflate_vid(file, vardesc%varid, shuffle, deflate, deflate_level)
  end function

  ! storage: PIO_chunked or PIO_contiguous; chunksizes in Fortran order.
  integer function def_var_chunking_vid(file, varid, storage, chunksizes) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, storage, chunksizes(:)
    integer(c_int64_t) :: csizes(max(size(chunksizes), 1))
    csizes = 0
    csizes(1:size(chunksizes)) = int(chunksizes(size(chunksizes):1:-1), c_int64_t)
    ierr = PIOc_def_var_chunking(file%fh, varid - 1, storage, csizes)
  end function

  integer function def_var_chunking_desc(file, vardesc, storage, chunksizes) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: storage, chunksizes(:)
    ierr = def_var_chunking_vid(file, vardesc%varid, storage, chunksizes)
  end function

  ! ---- inquiry: ids 1-based, lists in Fortran order -----------------------------------------

  integer function inquire_id(ncid, nDimensions, nVariables, nAttributes, unlimitedDimID) &
    result(ierr)
    integer, intent(in) :: ncid
    integer, intent(out), optional :: nDimensions, nVariables, nAttributes, unlimitedDimID
    ierr = PIO_noerr
    if (present(nDimensions)) ierr = PIOc_inq_ndims(ncid, nDimensions)
    if (ierr == PIO_noerr .and. present(nVariables)) ierr = PIOc_inq_nvars(ncid, nVariables)
    if (ierr == PIO_noerr .and. present(nAttributes)) ierr = PIOc_inq_natts(ncid, nAttributes)
    if (ierr == PIO_noerr .and. present(unlimitedDimID)) &
      ierr = inq_unlimdim_id(ncid, unlimitedDimID)
  end function

  integer function inquire_desc(file, nDimensions, nVariables, nAttributes, unlimitedDimID) &
    result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(out), optional :: nDimensions, nVariables, nAttributes, unlimitedDimID
    ierr = inquire_id(file%fh, nDimensions, nVariables, nAttributes, unlimitedDimID)
  end function

  ! unlimdim: -1 when the file has no record dimension.
  integer function inq_unlimdim_id(ncid, unlimdim) result(ierr)
    integer, intent(in) :: ncid
    integer, intent(out) :: unlimdim
    ierr = PIOc_inq_unlimdim(ncid, unlimdim)
    if (ierr == PIO_noerr .and. unlimdim >= 0) unlimdim = unlimdim + 1
  end function

  integer function inq_unlimdim_desc(file, unlimdim) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(out) :: unlimdim
    ierr = inq_unlimdim_id(file%fh, unlimdim)
  end function

  integer function inq_dimid_id(ncid, name, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(out) :: dimid
    ierr = PIOc_inq_dimid(ncid, c_str(name), dimid)
    dimid = merge(dimid + 1, -1, ierr == PIO_noerr)
  end function

  integer function inq_dimid_desc(file, name, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(out) :: dimid
    ierr = inq_dimid_id(file%fh, name, dimid)
  end function

  integer function inq_dimlen_id_long(ncid, dimid, len) result(ierr)
    integer, intent(in) :: ncid, dimid
    integer(PIO_OFFSET_KIND), intent(out) :: len
    ierr = PIOc_inq_dimlen(ncid, dimid - 1, len)
  end function

  integer function inq_dimlen_id(ncid, dimid, len) result(ierr)
    integer, intent(in) :: ncid, dimid
    integer, intent(out) :: len
    integer(PIO_OFFSET_KIND) :: long
    long = 0
    ierr = inq_dimlen_id_long(ncid, dimid, long)
    len = int(long)
  end function

  integer function inq_dimlen_desc_long(file, dimid, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    integer(PIO_OFFSET_KIND), intent(out) :: len
    ierr = inq_dimlen_id_long(file%fh, dimid, len)
  end function

  integer function inq_dimlen_desc(file, dimid, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    integer, intent(out) :: len
    ierr = inq_dimlen_id(file%fh, dimid, len)
  end function

  integer function inq_dimname_id(ncid, dimid, name) result(ierr)
    integer, intent(in) :: ncid, dimid
    character(len=*), intent(out) :: name
    character(kind=c_char) :: buffer(PIO_max_name + 1)
    buffer = c_null_char
    ierr = PIOc_inq_dimname(ncid, dimid - 1, buffer)
    call from_c(buffer, name)
  end function

  integer function inq_dimname_desc(file, dimid, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    character(len=*), intent(out) :: name
    ierr = inq_dimname_id(file%fh, dimid, name)
  end function

  integer function inquire_dimension_desc(file, dimid, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: len
    ierr = PIO_noerr
    if (present(name)) ierr = inq_dimname_id(file%fh, dimid, name)
    if (ierr == PIO_noerr .and. present(len)) ierr = inq_dimlen_id(file%fh, dimid, len)
  end function

  integer function inq_varid_id(ncid, name, varid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    ierr = PIOc_inq_varid(ncid, c_str(name), varid)
    varid = merge(varid + 1, -1, ierr == PIO_noerr)
  end function

  integer function inq_varid_vid(file, name, varid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    ierr = inq_varid_id(file%fh, name, varid)
  end function

  integer function inq_varid_desc(file, name, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    type(var_desc_t), intent(inout) :: vardesc
    ierr = inq_varid_id(file%fh, name, vardesc%varid)
    vardesc%ncid = file%fh
  end function

  integer function inq_varname_vid(file, varid, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(out) :: name
    character(kind=c_char) :: buffer(PIO_max_name + 1)
    buffer = c_null_char
    ierr = PIOc_inq_varname(file%fh, varid - 1, buffer)
    call from_c(buffer, name)
  end function

  integer function inq_varname_desc(file, vardesc, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(out) :: name
    ierr = inq_varname_vid(file, vardesc%varid, name)
  end function

  integer function inq_vartype_vid(file, varid, type) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: type
    ierr = PIOc_inq_vartype(file%fh, varid - 1, type)
  end function

  integer function inq_vartype_desc(file, vardesc, type) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: type
    ierr = inq_vartype_vid(file, vardesc%varid, type)
  end function

  integer function inq_varndims_vid(file, varid, ndims) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: ndims
    ierr = PIOc_inq_varndims(file%fh, varid - 1, ndims)
  end function

  integer function inq_varndims_desc(file, vardesc, ndims) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: ndims
    ierr = inq_varndims_vid(file, vardesc%varid, ndims)
  end function

  ! dimids must have room for the variable's dimensions (PIO_einval otherwise).
  integer function inq_vardimid_vid(file, varid, dimids) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: dimids(:)
    integer(c_int) :: ndims, cdimids(max_dims)
    ierr = PIOc_inq_varndims(file%fh, varid - 1, ndims)
    if (ierr /= PIO_noerr) return
    if (ndims > size(dimids) .or. ndims > max_dims) then
      ierr = PIO_einval
      return
    end if
    ierr = PIOc_inq_vardimid(file%fh, varid - 1, cdimids)
    if (ierr == PIO_noerr) dimids(1:ndims) = cdimids(ndims:1:-1) + 1
  end function

  integer function inq_vardimid_desc(file, vardesc, dimids) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: dimids(:)
    ierr = inq_vardimid_vid(file, vardesc%varid, dimids)
  end function

  integer function inq_varnatts_vid(file, varid, natts) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: natts
    ierr = PIOc_inq_varnatts(file%fh, varid - 1, natts)
  end function

  integer function inq_varnatts_desc(file, vardesc, natts) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: natts
    ierr = inq_varnatts_vid(file, vardesc%varid, natts)
  end function

  integer function inquire_variable_vid(file, varid, name, xtype, ndims, dimids, natts) &
    result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: xtype, ndims, dimids(:), natts
    ierr = PIO_noerr
    if (present(name)) ierr = inq_varname_vid(file, varid, name)
    if (ierr == PIO_noerr .and. present(xtype)) ierr = inq_vartype_vid(file, varid, xtype)
    if (ierr == PIO_noerr .and. present(ndims)) ierr = inq_varndims_vid(file, varid, ndims)
    if (ierr == PIO_noerr .and. present(dimids)) ierr = inq_vardimid_vid(file, varid, dimids)
    if (ierr == PIO_noerr .and. present(natts)) ierr = inq_varnatts_vid(file, varid, natts)
  end function

  integer function inquire_variable_desc(file, vardesc, name, xtype, ndims, dimids, natts) &
    result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: xtype, ndims, dimids(:), natts
    ierr = inquire_variable_vid(file, vardesc%varid, name, xtype, ndims, dimids, natts)
  end function

  integer function inq_att_vid(file, varid, name, xtype, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype
    integer(PIO_OFFSET_KIND), intent(out), optional :: len
    integer(c_int) :: ctype
    integer(c_int64_t) :: clen
    ierr = PIOc_inq_att(file%fh, varid - 1, c_str(name), ctype, clen)
    if (ierr /= PIO_noerr) return
    if (present(xtype)) xtype = ctype
    if (present(len)) len = clen
  end function

  integer function inq_att_desc(file, vardesc, name, xtype, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype
    integer(PIO_OFFSET_KIND), intent(out), optional :: len
    ierr = inq_att_vid(file, vardesc%varid, name, xtype, len)
  end function

  integer function inq_attlen_vid(file, varid, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(PIO_OFFSET_KIND), intent(out) :: len
    ierr = PIOc_inq_attlen(file%fh, varid - 1, c_str(name), len)
  end function

  integer function inq_attlen_desc(file, vardesc, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(PIO_OFFSET_KIND), intent(out) :: len
    ierr = inq_attlen_vid(file, vardesc%varid, name, len)
  end function
end module esmio_pio_nf
