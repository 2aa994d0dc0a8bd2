subroutine s(a, n)
  integer :: n, i, a(n)
!$omp gadget
!$omp critical
  a(1) = 0
!$omp end critical
!$omp end gadget
!$omp whatsit(3)
  do i = 1, n
!$omp atomic
    a(i) = a(i) + 1
  end do
!$omp barrier
end subroutine
