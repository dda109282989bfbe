! Names and strings between a Fortran model and the C layer: blank-padded Fortran strings
! as NUL-terminated C strings and back. Private to the modules of use pio.
module esmio_pio_strings
  use, intrinsic :: iso_c_binding, only: c_char, c_null_char
  implicit none
  private
  public :: c_str, from_c

contains

  ! s without trailing blanks, NUL-terminated.
  pure function c_str(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: cs
    cs = trim(s)//c_null_char
  end function

  ! A NUL-terminated C string as a Fortran one, padded with blanks (cut at len(s)).
  subroutine from_c(buffer, s)
    character(kind=c_char), intent(in) :: buffer(:)
    character(len=*), intent(out) :: s
    integer :: i
    s = ' '
    do i = 1, min(size(buffer), len(s))
      if (buffer(i) == c_null_char) exit
      s(i:i) = buffer(i)
    end do
  end subroutine
end module esmio_pio_strings
