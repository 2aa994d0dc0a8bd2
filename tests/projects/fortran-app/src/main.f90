program main
  use geometry
  implicit none
  real(dp) :: points(1000)
  integer :: i, evens
  do i = 1, size(points)
    points(i) = real(i, dp)
  end do
  call scale_points(points, 2.0_dp)
  call report('area', polygon_area(100000))
  call report('points', int(sum(points), 8))
  call count_even(5000, evens)
  call report('evens', int(evens, 8))
end program main
