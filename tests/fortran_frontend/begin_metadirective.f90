program p
  integer :: i, t
!$omp begin metadirective default(parallel do)
  do i = 1, 4
    t = i
  end do
!$omp end metadirective
end program p
