! `collapse` over loops that are not perfectly nested: since OpenMP 5.0 a
! loop of the nest may hold code before and after the next loop. (Compilers
! that only collapse perfect nests, such as gfortran before 14, reject it.)
program imperfect_collapse
  implicit none
  integer, parameter :: n = 6, m = 5
  integer :: i, j, k, total, offset, a(n, m), b(n, m, 3)
  total = 0
!$omp parallel do collapse(2) reduction(+:total) private(offset)
  do i = 1, n
    offset = 10 * i
    do j = 1, m
      a(i, j) = offset + j
      total = total + a(i, j)
    end do
    offset = 0
  end do
!$omp end parallel do
!$omp parallel
!$omp do collapse(3)
  do i = 1, n
    do j = 1, m
      b(i, j, 1) = 0
      do k = 1, 3
        b(i, j, k) = i + j + k
      end do
    end do
  end do
!$omp end parallel
  print '(a, i0, a, i0)', 'total ', total, ' b ', sum(b)
  if (total /= 1155) stop 1
end program imperfect_collapse
