! Summe über ein Feld: text outside ASCII before the directives.
program demo
  implicit none
  integer :: i
  real :: total
  total = 0.0
!$omp parallel do reduction(+:total)
  do i = 1, 100
    total = total + i
  end do
!$omp end parallel do
  print *, total
end program demo
