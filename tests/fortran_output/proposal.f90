! The 2002 proposal's directives in free form, next to OPARI2's !$pomp.
module work
  implicit none
contains
  integer function steps(n)
    integer, intent(in) :: n
    integer :: i
!$omp inst begin(Steps)
    steps = 0
    do i = 1, n
      steps = steps + i
      if (steps > 20) &
        return
    end do
!$omp inst end(STEPS)
  end function steps
end module work

program proposal
  use work
  implicit none
  integer :: total, hidden
!P$ integer :: only_instrumented
  total = 0
  hidden = 0
!P$ only_instrumented = 7
!$omp inst init
!$omp inst begin(all)
!$omp parallel reduction(+:total)
  total = total + 1
!$omp end parallel
!$omp inst off
!$omp inst on
!$omp noinstrument
!$omp parallel reduction(+:hidden)
  hidden = hidden + 1
!$omp end parallel
!$omp instrument
!$pomp inst begin(pomp)
  total = total + steps(3) + steps(10)
!$pomp inst end(pomp)
  !P$ total = total + only_instrumented
!$omp inst end(all)
!$omp inst finalize
  print *, 'total', total, 'hidden', hidden
end program proposal
