! PIO 2's Fortran procedures that move values, over the C layer (include/pio.h): attributes,
! decomposed arrays (PIO_write_darray, PIO_read_darray) and undecomposed variables (PIO_put_var,
! PIO_get_var), for real(4), real(8), integer(4) and integer(8) of any rank (esmio_pio_typed.inc)
! and text (attributes; variables from a string or an array of strings). A few checks keep the
! C calls inside the caller's arrays (docs/pio.md); they return PIO_einval without calling C.
module esmio_pio_values
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_char, c_ptr, c_null_ptr, &
    c_null_char, c_loc, c_float, c_double
  use esmio_pio_types
  use esmio_pio_c
  use esmio_pio_strings
  implicit none
  private

  public :: PIO_put_att, PIO_get_att, PIO_put_var, PIO_get_var, PIO_write_darray, PIO_read_darray

  interface PIO_put_att
    module procedure put_att_id_r4, put_att_desc_r4, put_att_vid_r4, put_att_id_r8, &
      put_att_desc_r8, put_att_vid_r8, put_att_id_i4, put_att_desc_i4, put_att_vid_i4, &
      put_att_id_i8, put_att_desc_i8, put_att_vid_i8, put_att_id_text, put_att_desc_text, &
      put_att_vid_text
  end interface
  interface PIO_get_att
    module procedure get_att_id_r4, get_att_desc_r4, get_att_vid_r4, get_att_id_r8, &
      get_att_desc_r8, get_att_vid_r8, get_att_id_i4, get_att_desc_i4, get_att_vid_i4, &
      get_att_id_i8, get_att_desc_i8, get_att_vid_i8, get_att_id_text, get_att_desc_text, &
      get_att_vid_text
  end interface
  interface PIO_write_darray
    module procedure write_darray_r4, write_darray_r8, write_darray_i4, write_darray_i8
  end interface
  interface PIO_read_darray
    module procedure read_darray_r4, read_darray_r8, read_darray_i4, read_darray_i8
  end interface
  interface PIO_put_var
    module procedure put_var_vid_r4, put_var_desc_r4, put_vara_vid_r4, put_vara_desc_r4, &
      put_var_vid_r8, put_var_desc_r8, put_vara_vid_r8, put_vara_desc_r8, put_var_vid_i4, &
      put_var_desc_i4, put_vara_vid_i4, put_vara_desc_i4, put_var_vid_i8, put_var_desc_i8, &
      put_vara_vid_i8, put_vara_desc_i8, put_var_text_vid, put_var_text_desc, &
      put_var_text_1d_vid, put_var_text_1d_desc, put_vara_text_vid, put_vara_text_desc, &
      put_vara_text_1d_vid, put_vara_text_1d_desc
  end interface
  interface PIO_get_var
    module procedure get_var_vid_r4, get_var_desc_r4, get_vara_vid_r4, get_vara_desc_r4, &
      get_var_vid_r8, get_var_desc_r8, get_vara_vid_r8, get_vara_desc_r8, get_var_vid_i4, &
      get_var_desc_i4, get_vara_vid_i4, get_vara_desc_i4, get_var_vid_i8, get_var_desc_i8, &
      get_vara_vid_i8, get_vara_desc_i8, get_var_text_vid, get_var_text_desc, &
      get_var_text_1d_vid, get_var_text_1d_desc, get_vara_text_vid, get_vara_text_desc, &
      get_vara_text_1d_vid, get_vara_text_1d_desc
  end interface

contains

  ! ---- checks and dimension order -----------------------------------------------------------

  ! start (1-based) and count of a vara call in Fortran order, as C's. Checks nothing itself: a
  ! start or count of the wrong length, or values too short for count, give a negative count,
  ! which the C call refuses on every task (a collective error) instead of failing here on some.
  subroutine box_to_c(ncid, varid, start, count, nvalues, cstart, ccount)
    integer, intent(in) :: ncid, varid, start(:), count(:)
    integer(c_int64_t), intent(in) :: nvalues
    integer(c_int64_t), intent(out) :: cstart(max_dims), ccount(max_dims)
    integer(c_int) :: ndims
    cstart = 0
    ccount = 0
    ndims = 0
    if (PIOc_inq_varndims(ncid, varid - 1, ndims) /= PIO_noerr) return  ! C reports the bad id
    if (size(start) /= ndims .or. size(count) /= ndims .or. ndims > max_dims) then
      ccount(1) = -1
      return
    end if
    cstart(1:ndims) = int(start(ndims:1:-1), c_int64_t) - 1
    ccount(1:ndims) = int(count(ndims:1:-1), c_int64_t)
    if (product(ccount(1:ndims)) > nvalues) ccount(1) = -1
  end subroutine

  ! PIO_noerr when nvalues is room for every value of the variable (the records written so
  ! far, for a record variable); else PIO_einval, or the error of the inquiry.
  integer function whole_fits(ncid, varid, nvalues) result(ierr)
    integer, intent(in) :: ncid, varid
    integer(c_int64_t), intent(in) :: nvalues
    integer(c_int64_t) :: total
    ierr = whole_size(ncid, varid, total)
    if (ierr == PIO_noerr .and. total > nvalues) ierr = PIO_einval
  end function

  ! total: the number of values of the whole variable (the records written so far, for a
  ! record variable).
  integer function whole_size(ncid, varid, total) result(ierr)
    integer, intent(in) :: ncid, varid
    integer(c_int64_t), intent(out) :: total
    integer(c_int) :: ndims, dimids(max_dims), i
    integer(c_int64_t) :: length
    total = 0
    ierr = PIOc_inq_varndims(ncid, varid - 1, ndims)
    if (ierr /= PIO_noerr) return
    if (ndims > max_dims) then
      ierr = PIO_einval
      return
    end if
    ierr = PIOc_inq_vardimid(ncid, varid - 1, dimids)
    total = 1
    do i = 1, ndims
      if (ierr /= PIO_noerr) return
      ierr = PIOc_inq_dimlen(ncid, dimids(i), length)
      total = total * length
    end do
  end function

  ! ---- text attributes: written without trailing blanks, as PIO does ------------------------

  integer function put_att_id_text(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name, values
    ierr = PIOc_put_att_text(ncid, varid - 1, c_str(name), &
                             int(len_trim(values), c_int64_t), values)
  end function

  integer function put_att_desc_text(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name, values
    ierr = put_att_id_text(file%fh, vardesc%varid, name, values)
  end function

  integer function put_att_vid_text(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name, values
    ierr = put_att_id_text(file%fh, varid, name, values)
  end function

  ! values: the attribute's text padded with blanks, cut at len(values) as an assignment does.
  integer function get_att_id_text(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: values
    character(kind=c_char), allocatable :: buffer(:)
    integer(c_int64_t) :: attlen
    values = ' '
    ierr = PIOc_inq_attlen(ncid, varid - 1, c_str(name), attlen)
    if (ierr /= PIO_noerr) return
    allocate (buffer(attlen + 1))
    buffer = c_null_char
    ierr = PIOc_get_att_text(ncid, varid - 1, c_str(name), buffer)
    if (ierr == PIO_noerr) call from_c(buffer, values)
  end function

  integer function get_att_desc_text(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: values
    ierr = get_att_id_text(file%fh, vardesc%varid, name, values)
  end function

  integer function get_att_vid_text(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    character(len=*), intent(out) :: values
    ierr = get_att_id_text(file%fh, varid, name, values)
  end function

  ! ---- text variables: a string holds a variable's fastest (character) dimension -------------

  ! The whole variable, or the box start..start+count-1 (have_box), from or into chars. The
  ! whole variable from fewer chars: the rest is NUL (netCDF's fill for text), as a shorter
  ! string reads; into fewer chars: cut, as an assignment. More chars than the variable holds
  ! are not written (PIO_einval).
  integer function text_access(ncid, varid, write, have_box, start, count, chars) result(ierr)
    integer, intent(in) :: ncid, varid, start(:), count(:)
    logical, intent(in) :: write, have_box
    character(kind=c_char), intent(inout) :: chars(:)
    character(kind=c_char), allocatable :: whole(:)
    integer(c_int64_t) :: cstart(max_dims), ccount(max_dims), total, n
    if (have_box) then
      call box_to_c(ncid, varid, start, count, size(chars, kind=c_int64_t), cstart, ccount)
      if (write) then
        ierr = PIOc_put_vara_text(ncid, varid - 1, cstart, ccount, chars)
      else
        ierr = PIOc_get_vara_text(ncid, varid - 1, cstart, ccount, chars)
      end if
      return
    end if
    ierr = whole_size(ncid, varid, total)
    if (ierr /= PIO_noerr) return
    if (write .and. size(chars, kind=c_int64_t) > total) then
      ierr = PIO_einval
      return
    end if
    allocate (whole(max(total, 1_c_int64_t)))
    whole = c_null_char
    n = min(total, size(chars, kind=c_int64_t))
    if (write) then
      whole(1:n) = chars(1:n)
      ierr = PIOc_put_var_text(ncid, varid - 1, whole)
    else
      ierr = PIOc_get_var_text(ncid, varid - 1, whole)
      chars = ' '
      if (ierr == PIO_noerr) chars(1:n) = whole(1:n)
    end if
  end function

  ! Text read from a file, NULs (netCDF's fill) as blanks, as PIO gives it to Fortran.
  elemental function blanked(c) result(b)
    character(kind=c_char), intent(in) :: c
    character(kind=c_char) :: b
    b = merge(' ', c, c == c_null_char)
  end function

  integer function put_var_text_vid(file, varid, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: values
    character(kind=c_char) :: chars(len(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .true., .false., [0], [0], chars)
  end function

  integer function put_var_text_desc(file, vardesc, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: values
    ierr = put_var_text_vid(file, vardesc%varid, values)
  end function

  integer function put_var_text_1d_vid(file, varid, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: values(:)
    character(kind=c_char) :: chars(len(values) * size(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .true., .false., [0], [0], chars)
  end function

  integer function put_var_text_1d_desc(file, vardesc, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: values(:)
    ierr = put_var_text_1d_vid(file, vardesc%varid, values)
  end function

  ! start and count include the character dimension (first, in Fortran order).
  integer function put_vara_text_vid(file, varid, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(in) :: values
    character(kind=c_char) :: chars(len(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .true., .true., start, count, chars)
  end function

  integer function put_vara_text_desc(file, vardesc, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(in) :: values
    ierr = put_vara_text_vid(file, vardesc%varid, start, count, values)
  end function

  integer function put_vara_text_1d_vid(file, varid, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(in) :: values(:)
    character(kind=c_char) :: chars(len(values) * size(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .true., .true., start, count, chars)
  end function

  integer function put_vara_text_1d_desc(file, vardesc, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(in) :: values(:)
    ierr = put_vara_text_1d_vid(file, vardesc%varid, start, count, values)
  end function

  integer function get_var_text_vid(file, varid, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(inout) :: values
    character(kind=c_char) :: chars(len(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .false., .false., [0], [0], chars)
    if (ierr == PIO_noerr) values = transfer(blanked(chars), values)
  end function

  integer function get_var_text_desc(file, vardesc, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(inout) :: values
    ierr = get_var_text_vid(file, vardesc%varid, values)
  end function

  integer function get_var_text_1d_vid(file, varid, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(inout) :: values(:)
    character(kind=c_char) :: chars(len(values) * size(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .false., .false., [0], [0], chars)
    if (ierr == PIO_noerr) values = transfer(blanked(chars), values, size(values))
  end function

  integer function get_var_text_1d_desc(file, vardesc, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(inout) :: values(:)
    ierr = get_var_text_1d_vid(file, vardesc%varid, values)
  end function

  integer function get_vara_text_vid(file, varid, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(inout) :: values
    character(kind=c_char) :: chars(len(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .false., .true., start, count, chars)
    if (ierr == PIO_noerr) values = transfer(blanked(chars), values)
  end function

  integer function get_vara_text_desc(file, vardesc, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(inout) :: values
    ierr = get_vara_text_vid(file, vardesc%varid, start, count, values)
  end function

  integer function get_vara_text_1d_vid(file, varid, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(inout) :: values(:)
    character(kind=c_char) :: chars(len(values) * size(values))
    chars = transfer(values, chars)
    ierr = text_access(file%fh, varid, .false., .true., start, count, chars)
    if (ierr == PIO_noerr) values = transfer(blanked(chars), values, size(values))
  end function

  integer function get_vara_text_1d_desc(file, vardesc, start, count, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(inout) :: values(:)
    ierr = get_vara_text_1d_vid(file, vardesc%varid, start, count, values)
  end function

  ! ---- values of each type ------------------------------------------------------------------

#define FTYPE real(c_float)
#define PIOTYPE PIO_real
#define NAME(x) x/**/_r4
#define CNAME(x) x/**/_float
#include "esmio_pio_typed.inc"
#undef FTYPE
#undef PIOTYPE
#undef NAME
#undef CNAME

#define FTYPE real(c_double)
#define PIOTYPE PIO_double
#define NAME(x) x/**/_r8
#define CNAME(x) x/**/_double
#include "esmio_pio_typed.inc"
#undef FTYPE
#undef PIOTYPE
#undef NAME
#undef CNAME

#define FTYPE integer(c_int)
#define PIOTYPE PIO_int
#define NAME(x) x/**/_i4
#define CNAME(x) x/**/_int
#include "esmio_pio_typed.inc"
#undef FTYPE
#undef PIOTYPE
#undef NAME
#undef CNAME

#define FTYPE integer(c_int64_t)
#define PIOTYPE PIO_int64
#define NAME(x) x/**/_i8
#define CNAME(x) x/**/_longlong
#include "esmio_pio_typed.inc"
#undef FTYPE
#undef PIOTYPE
#undef NAME
#undef CNAME
end module esmio_pio_values
