; A square lattice of dielectric rods: TM bands along Gamma-X (MPB's tutorial case).
(set! geometry-lattice (make lattice (size 1 1 no-size)))
(set! geometry (list (make cylinder (center 0 0 0) (radius 0.2) (height infinity)
                           (material (make dielectric (epsilon 12))))))
(set! k-points (interpolate 4 (list (vector3 0 0 0) (vector3 0.5 0 0))))
(set! resolution 64)
(set! num-bands 8)
(run-tm)
