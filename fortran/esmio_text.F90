! Strings between Fortran and C for the esmio module: Fortran strings lose their trailing
! blanks and gain a NUL on the way in, C strings become allocatable Fortran strings on the way out.
module esmio_text
  use, intrinsic :: iso_c_binding
  use esmio_constants, only: ESMIO_NOERR, ESMIO_EINVAL
  implicit none
  private
  public :: c_str, f_str, buffer_text, fit_name

contains

  ! s without trailing blanks, NUL-terminated, for a C string argument.
  pure function c_str(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: cs
    cs = trim(s)//c_null_char
  end function

  ! The NUL-terminated C string at ptr.
  function f_str(ptr) result(s)
    type(c_ptr), intent(in) :: ptr
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    interface
      integer(c_size_t) function strlen(p) bind(C, name="strlen")
        import :: c_ptr, c_size_t
        type(c_ptr), value :: p
      end function
    end interface
    integer :: i
    if (.not. c_associated(ptr)) then
      s = ""
      return
    end if
    n = int(strlen(ptr))
    call c_f_pointer(ptr, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! The characters of buf before its NUL.
  pure function buffer_text(buf) result(s)
    character(kind=c_char), intent(in) :: buf(:)
    character(len=:), allocatable :: s
    integer :: n, i
    n = size(buf)
    do i = 1, size(buf)
      if (buf(i) == c_null_char) then
        n = i - 1
        exit
      end if
    end do
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = buf(i)
    end do
  end function

  ! Copies text into name (blank-padded); ESMIO_EINVAL if it does not fit.
  integer function fit_name(text, name) result(ierr)
    character(len=*), intent(in) :: text
    character(len=*), intent(out) :: name
    ierr = ESMIO_NOERR
    name = text
    if (len(text) > len(name)) ierr = ESMIO_EINVAL
  end function

end module esmio_text
