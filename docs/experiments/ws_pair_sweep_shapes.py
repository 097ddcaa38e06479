#!/usr/bin/env python3
"""ws_pair_sweep_shapes.py SEED COUNT - COUNT random shapes (CSV for `cgp bench --zoo`) where tf32-v21 can put two
images side by side in a tile (ws_pairable: W + pad <= 8, N >= 2): N 2-256, H 3-28, W 3-8 (W 3-7 with padding same),
Cin 8-1024 and Cout 16-768 log-uniform, 0.05 to 40 GFLOP of convolution. Not shapes of the repository: the sample
ws_pair_run1.sh times every (channels, split, images a tile) of ws_choose on."""
import math
import random
import sys

r = random.Random(int(sys.argv[1]))
want = int(sys.argv[2])
print("n,cin,cout,h,w,padding,label")
k = 0
while k < want:
    n = int(round(math.exp(r.uniform(math.log(2), math.log(256)))))
    pad = r.choice(["same", "valid"])
    h = r.randint(3, 28)
    w = r.randint(3, 7 if pad == "same" else 8)
    cin = int(round(math.exp(r.uniform(math.log(8), math.log(1024)))))
    cout = int(round(math.exp(r.uniform(math.log(16), math.log(768)))))
    ho, wo = (h, w) if pad == "same" else (h - 2, w - 2)
    flop = 2 * n * ho * wo * cout * cin * 9 if ho > 0 and wo > 0 else 0
    if not 5e7 <= flop <= 4e10:
        continue
    print(f"{n},{cin},{cout},{h},{w},{pad},r{k}")
    k += 1
