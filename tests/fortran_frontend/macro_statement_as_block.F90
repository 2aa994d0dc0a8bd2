program p
  integer :: i, x
!$omp parallel do
  MY_LOOP
!$omp atomic
  MY_INC(x)
end program p
