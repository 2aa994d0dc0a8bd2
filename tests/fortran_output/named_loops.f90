! A collapsed nest of named loops: both loops' ends carry their names.
program named
  implicit none
  integer :: i, j, total
  total = 0
!$omp parallel do collapse(2) reduction(+:total)
  rows: do i = 1, 40
    columns: do j = 1, 30
      total = total + i * j
    end do columns
  end do rows
  print *, 'total', total
end program named
