! The descriptors and constants of PIO's Fortran interface, with PIO 2's names, components and
! values (include/pio.h for C; netCDF's for types, modes and error codes), so that a model's
! declarations and comparisons compile unchanged. `use pio` makes all of them visible.
!
! Fortran ids start at 1 as in netCDF-Fortran: a var_desc_t's varid and a dimid are the C id
! plus one, and PIO_global (0) is C's PIO_GLOBAL (-1) plus one. The module pio converts.
module esmio_pio_types
  use, intrinsic :: iso_c_binding, only: c_int, c_bool, c_int64_t
  implicit none
  private

  ! MPI_Offset: offsets, lengths and frames.
  integer, parameter, public :: PIO_OFFSET_KIND = c_int64_t
  ! Kinds used here only: private, so that a model's own r4 or r8 does not clash with `use pio`.
  integer, parameter :: r4 = selected_real_kind(6), r8 = selected_real_kind(13)

  ! An I/O system: PIO_init fills it, every file and decomposition names it.
  type, public :: iosystem_desc_t
    integer(c_int) :: iosysid = -1
  end type iosystem_desc_t

  ! An open file: fh is the C layer's ncid.
  type, public :: file_desc_t
    integer(c_int) :: fh = -1
    type(iosystem_desc_t), pointer :: iosystem => null()
  end type file_desc_t

  ! A decomposition: ioid is the C layer's id.
  type, public :: io_desc_t
    integer(c_int) :: ioid = -1
  end type io_desc_t

  ! A variable: varid is 1-based (the C id plus one); ncid is kept for models that read it.
  type, public :: var_desc_t
    integer(c_int) :: varid = -1
    integer(c_int) :: ncid = -1
  end type var_desc_t

  ! Rearranger options for PIO_init (accepted, as PIOc_set_rearr_opts: docs/pio.md).
  type, bind(C), public :: pio_rearr_comm_fc_opt_t
    logical(c_bool) :: enable_hs = .false.
    logical(c_bool) :: enable_isend = .false.
    integer(c_int) :: max_pend_req = -1
  end type pio_rearr_comm_fc_opt_t
  type, bind(C), public :: pio_rearr_opt_t
    integer(c_int) :: comm_type = 0
    integer(c_int) :: fcd = 0
    type(pio_rearr_comm_fc_opt_t) :: comm_fc_opts_comp2io
    type(pio_rearr_comm_fc_opt_t) :: comm_fc_opts_io2comp
  end type pio_rearr_opt_t

  ! iotypes.
  integer, parameter, public :: PIO_iotype_pnetcdf = 1, PIO_iotype_netcdf = 2
  integer, parameter, public :: PIO_iotype_netcdf4c = 3, PIO_iotype_netcdf4p = 4
  integer, parameter, public :: iotype_pnetcdf = PIO_iotype_pnetcdf
  integer, parameter, public :: iotype_netcdf = PIO_iotype_netcdf

  ! Rearrangers and their options.
  integer, parameter, public :: PIO_rearr_box = 1, PIO_rearr_subset = 2
  integer, parameter, public :: PIO_rearr_comm_p2p = 0, PIO_rearr_comm_coll = 1
  integer, parameter, public :: PIO_rearr_comm_fc_2d_enable = 0
  integer, parameter, public :: PIO_rearr_comm_fc_1d_comp2io = 1
  integer, parameter, public :: PIO_rearr_comm_fc_1d_io2comp = 2
  integer, parameter, public :: PIO_rearr_comm_fc_2d_disable = 3
  integer, parameter, public :: PIO_rearr_comm_unlimited_pend_req = -1

  ! Error handling.
  integer, parameter, public :: PIO_internal_error = -51, PIO_bcast_error = -52
  integer, parameter, public :: PIO_return_error = -53, PIO_default = -1

  ! Ids, types, modes and sizes (netCDF's values).
  integer, parameter, public :: PIO_global = 0, PIO_unlimited = 0
  integer, parameter, public :: PIO_byte = 1, PIO_char = 2, PIO_short = 3, PIO_int = 4
  integer, parameter, public :: PIO_real = 5, PIO_float = 5, PIO_double = 6, PIO_int64 = 10
  integer, parameter, public :: PIO_nowrite = 0, PIO_write = 1
  integer, parameter, public :: PIO_clobber = 0, PIO_noclobber = 4
  integer, parameter, public :: PIO_fill = 0, PIO_nofill = 256
  integer, parameter, public :: PIO_64bit_offset = 512, PIO_64bit_data = 32
  integer, parameter, public :: PIO_max_name = 256, PIO_max_var_dims = 6
  integer, parameter, public :: PIO_chunked = 0, PIO_contiguous = 1
  integer, parameter, public :: PIO_fill_int = -2147483647
  real(r4), parameter, public :: PIO_fill_float = 9.9692099683868690e+36_r4
  real(r8), parameter, public :: PIO_fill_double = 9.9692099683868690e+36_r8

  ! Error codes (netCDF's, and PIO's own from -500).
  integer, parameter, public :: PIO_noerr = 0
  integer, parameter, public :: PIO_ebadid = -33, PIO_eexist = -35, PIO_einval = -36
  integer, parameter, public :: PIO_eperm = -37, PIO_enotindefine = -38, PIO_eindefine = -39
  integer, parameter, public :: PIO_einvalcoords = -40, PIO_enameinuse = -42
  integer, parameter, public :: PIO_enotatt = -43, PIO_ebadtype = -45, PIO_ebaddim = -46
  integer, parameter, public :: PIO_enotvar = -49, PIO_enotnc = -51, PIO_eedge = -57
  integer, parameter, public :: PIO_erange = -60, PIO_enomem = -61, PIO_eio = -68
  integer, parameter, public :: PIO_ebadiotype = -500
end module esmio_pio_types
