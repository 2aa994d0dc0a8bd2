subroutine total(n, t)
  integer :: n, i, t
  t = 0
!$omp parallel do reduction(+:t)
  do i = 1, n
    t = t + i
  end do
!$omp end parallel do
  call report(t, )
end subroutine
