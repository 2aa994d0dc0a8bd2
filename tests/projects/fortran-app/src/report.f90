! No directives: compiled untouched.
subroutine report(label, value)
  implicit none
  character(len=*), intent(in) :: label
  integer(8), intent(in) :: value
  write (*, '(a, 1x, i0)') label, value
end subroutine report
