! `use pio`: NCAR ParallelIO 2's Fortran interface on esmio. A model written against PIO's
! Fortran module compiles unchanged and links with -lesmio_piof -lesmio_pio -lesmio instead of
! -lpiof -lpioc (docs/pio.md). The descriptors and constants are esmio_pio_types'; the
! procedures, over the C layer of include/pio.h, are esmio_pio_files' (I/O systems, errors,
! decompositions, files, frames), esmio_pio_nf's (definitions, inquiries) and
! esmio_pio_values' (attributes, decomposed and undecomposed data).
module pio
  ! PIO's module makes ISO_C_BINDING's names visible too, and some models rely on it.
  use, intrinsic :: iso_c_binding
  use esmio_pio_types
  use esmio_pio_files
  use esmio_pio_nf
  use esmio_pio_values
  implicit none
  public
end module pio
