; A straight dielectric waveguide driven by a continuous source (Meep's tutorial case).
(set! geometry-lattice (make lattice (size 32 16 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity)
                           (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15)))
                          (component Ez) (center -14 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 20)
(run-until 100)
