! The history file of a CESM-like component that pio_history.F90 writes through `use pio` and
! pio_history_native.F90 through `use esmio`: the grid, each task's columns, its PIO-style
! compdof maps, and the value of every point, so that both programs write the same data.
!
! Columns live as in CAM: in chunks of pcols, field(pcols, nchunks) for a 2-D field and
! field(pcols, nlev, nchunks) for a 3-D one; the unused slots of the last chunk are holes of
! the map (compdof 0). Cells with mod(cell, 7) == 3 belong to no task: the file holds the
! variable's _FillValue there.
module history_case
  implicit none
  private
  public :: nlon, nlat, nlev, nframes, pcols, ncells, fill8, fill4
  public :: local_columns, nchunks_of, maps, value, fill_2d, fill_3d, fill_2d_int

  integer, parameter :: nlon = 12, nlat = 8, nlev = 3, nframes = 3, pcols = 4
  integer, parameter :: ncells = nlon * nlat
  real(8), parameter :: fill8 = -9999.0d0
  real(4), parameter :: fill4 = -999.0

contains

  ! The cells (1-based, longitude fastest) of this task: blocks of 5 cells round-robin.
  function local_columns(rank, nranks) result(cols)
    integer, intent(in) :: rank, nranks
    integer, allocatable :: cols(:)
    integer :: cell
    allocate (cols(0))
    do cell = 1, ncells
      if (mod(cell, 7) == 3) cycle
      if (mod((cell - 1) / 5, nranks) == rank) cols = [cols, cell]
    end do
  end function

  integer function nchunks_of(cols) result(nchunks)
    integer, intent(in) :: cols(:)
    nchunks = max(1, (size(cols) + pcols - 1) / pcols)
  end function

  ! compdof of a 2-D field (pcols, nchunks) and of a 3-D one (pcols, nlev, nchunks), in memory
  ! order: the cell's 1-based position in the field (lon, lat[, lev]), 0 for an unused slot.
  subroutine maps(cols, dof2, dof3)
    integer, intent(in) :: cols(:)
    integer(4), allocatable, intent(out) :: dof2(:)
    integer(8), allocatable, intent(out) :: dof3(:)
    integer :: nchunks, i, k, chunk, n
    nchunks = nchunks_of(cols)
    allocate (dof2(pcols * nchunks), dof3(pcols * nlev * nchunks))
    dof2 = 0
    dof3 = 0
    do chunk = 1, nchunks
      do i = 1, pcols
        n = i + (chunk - 1) * pcols
        if (n > size(cols)) cycle
        dof2(n) = cols(n)
        do k = 1, nlev
          dof3(i + (k - 1) * pcols + (chunk - 1) * pcols * nlev) = cols(n) + (k - 1) * ncells
        end do
      end do
    end do
  end subroutine

  ! The value of a field at a cell, level and frame: exact in real(4) too.
  real(8) function value(field, cell, level, frame)
    integer, intent(in) :: field, cell, level, frame
    value = field * 1000 + frame * 100 + level * 10 + cell / 128.0d0
  end function

  ! A 2-D field's local array; unused slots hold junk (hole: never written).
  subroutine fill_2d(field, frame, cols, a)
    integer, intent(in) :: field, frame, cols(:)
    real(8), intent(out) :: a(:, :)
    integer :: i, chunk, n
    a = -1.0d0
    do chunk = 1, size(a, 2)
      do i = 1, pcols
        n = i + (chunk - 1) * pcols
        if (n <= size(cols)) a(i, chunk) = value(field, cols(n), 0, frame)
      end do
    end do
  end subroutine

  subroutine fill_3d(field, frame, cols, a)
    integer, intent(in) :: field, frame, cols(:)
    real(8), intent(out) :: a(:, :, :)
    integer :: i, k, chunk, n
    a = -1.0d0
    do chunk = 1, size(a, 3)
      do k = 1, nlev
        do i = 1, pcols
          n = i + (chunk - 1) * pcols
          if (n <= size(cols)) a(i, k, chunk) = value(field, cols(n), k, frame)
        end do
      end do
    end do
  end subroutine

  ! An integer 2-D field (a mask): the cell's latitude row.
  subroutine fill_2d_int(cols, a)
    integer, intent(in) :: cols(:)
    integer, intent(out) :: a(:, :)
    integer :: i, chunk, n
    a = -1
    do chunk = 1, size(a, 2)
      do i = 1, pcols
        n = i + (chunk - 1) * pcols
        if (n <= size(cols)) a(i, chunk) = (cols(n) - 1) / nlon + 1
      end do
    end do
  end subroutine
end module history_case
