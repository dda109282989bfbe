! The ESMIO_* constants of the Fortran module: the values of include/esmio.h
! (tests/fortran/check_constants.py checks them), except ESMIO_GLOBAL, which is 0 as
! netCDF-Fortran's NF90_GLOBAL (the module's ids start at 1). `use esmio` makes them visible.
module esmio_constants
  implicit none
  public

  integer, parameter :: ESMIO_NOERR = 0
  integer, parameter :: ESMIO_EINVAL = -1
  integer, parameter :: ESMIO_ENOMEM = -2
  integer, parameter :: ESMIO_EBADID = -3
  integer, parameter :: ESMIO_ENOTVAR = -4
  integer, parameter :: ESMIO_ENOTDIM = -5
  integer, parameter :: ESMIO_EINDEFINE = -6
  integer, parameter :: ESMIO_ENOTINDEFINE = -7
  integer, parameter :: ESMIO_ERANGE = -8
  integer, parameter :: ESMIO_EBADTYPE = -9
  integer, parameter :: ESMIO_EDECOMP = -10
  integer, parameter :: ESMIO_ESHAPE = -11
  integer, parameter :: ESMIO_EBUFSIZE = -12
  integer, parameter :: ESMIO_ERECORD = -13
  integer, parameter :: ESMIO_EIO = -14
  integer, parameter :: ESMIO_ENOTNC = -15
  integer, parameter :: ESMIO_EBACKEND = -16
  integer, parameter :: ESMIO_EBADNAME = -17
  integer, parameter :: ESMIO_ENOTBUILT = -18
  integer, parameter :: ESMIO_ESETTING = -19
  integer, parameter :: ESMIO_EMPI = -20
  integer, parameter :: ESMIO_EPERM = -21
  integer, parameter :: ESMIO_EEXIST = -22
  integer, parameter :: ESMIO_ENAMEINUSE = -23
  integer, parameter :: ESMIO_EMAXDIMS = -24
  integer, parameter :: ESMIO_EUNLIMPOS = -25
  integer, parameter :: ESMIO_EMISMATCH = -26
  integer, parameter :: ESMIO_ECORRUPT = -27
  integer, parameter :: ESMIO_ENOSPC = -28
  integer, parameter :: ESMIO_ENOTATT = -29
  integer, parameter :: ESMIO_ECHECKSUM = -30

  integer, parameter :: ESMIO_BYTE = 1
  integer, parameter :: ESMIO_CHAR = 2
  integer, parameter :: ESMIO_SHORT = 3
  integer, parameter :: ESMIO_INT = 4
  integer, parameter :: ESMIO_FLOAT = 5
  integer, parameter :: ESMIO_DOUBLE = 6
  integer, parameter :: ESMIO_UBYTE = 7   ! the unsigned types: CDF-5 and netCDF-4 files only
  integer, parameter :: ESMIO_USHORT = 8
  integer, parameter :: ESMIO_UINT = 9
  integer, parameter :: ESMIO_INT64 = 10
  integer, parameter :: ESMIO_UINT64 = 11

  ! Roles (asynchronous mode: esmio_inq_role)
  integer, parameter :: ESMIO_ROLE_COMPUTE = 0
  integer, parameter :: ESMIO_ROLE_SERVER = 1

  integer, parameter :: ESMIO_GLOBAL = 0
  integer, parameter :: ESMIO_UNLIMITED = 0
  integer, parameter :: ESMIO_MAX_DIMS = 16
  integer, parameter :: ESMIO_MAX_NAME = 256
  integer, parameter :: ESMIO_NOWRITE = 0
  integer, parameter :: ESMIO_WRITE = 1
  integer, parameter :: ESMIO_TRACE_BINS = 48
end module esmio_constants
