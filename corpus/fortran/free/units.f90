! Program units: a module with contains and module procedures, internal
! procedures, a block construct, an include line, `!$` conditional lines
! and pomp user regions.
module counters
  implicit none
  integer :: module_total = 0
contains
  subroutine add_in_parallel(n)
    integer, intent(in) :: n
    integer :: i
!$omp parallel do reduction(+:module_total)
    do i = 1, n
      module_total = module_total + i
    end do
  end subroutine add_in_parallel

  integer function threads_used() result(used)
    used = 1
!$  used = 0
!$omp parallel
!$omp atomic
!$  used = used + 1
!$omp end parallel
  end function threads_used
end module counters

program units
  use counters
!$ use omp_lib
  implicit none
  include 'units.inc'
  integer :: i, inner_total, threads

  included_counter = 0
!$pomp inst begin(setup)
  call add_in_parallel(10)
!$pomp inst end(setup)
  if (module_total /= 55) error stop 1

  inner_total = 0
  call accumulate()
  if (inner_total /= 10 * scale) error stop 2

  block
    integer :: local
    local = 0
!$omp parallel do reduction(+:local)
    do i = 1, 5
      local = local + i
    end do
    if (local /= 15) error stop 3
  end block

  threads = threads_used()
  if (threads < 1) error stop 4
!$ if (omp_get_max_threads() < 1) error stop 5

  print '(a, i0)', 'module total: ', module_total
  print '(a, i0)', 'inner total: ', inner_total
  print '(a, i0)', 'included: ', included_counter
contains
  subroutine accumulate()
    integer :: k
!$omp parallel do reduction(+:inner_total)
    do k = 1, 10
      inner_total = inner_total + scale
    end do
!$omp parallel
!$omp single
    included_counter = included_counter + 1
!$omp end single
!$omp end parallel
  end subroutine accumulate
end program units
