#!/bin/bash
# part 1: the shared matrices and libraries for part 2
cd .gpu; rm -rf q3; tar xJf q5m.tar.xz; cd q3; (cd mat && xz -d *.xz && gzip -1 *.mtx); ls mat | wc -l
