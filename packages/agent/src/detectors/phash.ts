// The perceptual hash is the device layer's (one implementation for waitForStable and the detectors).
export { phashGray as phash, hammingDistance, PHASH_SIZE } from "@phoneloop/device";
