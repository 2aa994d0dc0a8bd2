program p
  implicit none
  integer :: i, j, a(10,10)
!$omp parallel
!$omp do private(j)
  do 10 i = 1, 10
  do 10 j = 1, 10
10 a(i,j) = 0
  ! a comment
!$omp end do nowait
!$omp end parallel
end program p
