module geometry
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  function polygon_area(n) result(area)
    integer, intent(in) :: n
    integer(8) :: area
    integer :: i
    area = 0
    !$omp parallel do reduction(+:area)
    do i = 1, n
      area = area + int(mod(i * 7, 13), 8) * int(mod(i * 3, 11), 8)
    end do
    !$omp end parallel do
  end function polygon_area

  subroutine scale_points(points, factor)
    real(dp), intent(inout) :: points(:)
    real(dp), intent(in) :: factor
    integer :: i
    !$omp parallel
    !$omp do
    do i = 1, size(points)
      points(i) = points(i) * factor
    end do
    !$omp end do
    !$omp end parallel
  end subroutine scale_points
end module geometry
