      SUBROUTINE S(X)
      X = 1                                                             THIS IS IGNORED
C$OMP PARALLEL
  100 X = 2
C$OMP END PARALLEL
      END
