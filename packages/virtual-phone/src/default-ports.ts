// The ports `npm run phone` (and `npm start`) listen on when none are given.

/** Outside 5554-5585, the range adb scans for emulators: a phone there would be listed twice by `adb devices`. */
export const DEFAULT_PORTS = { adb: 15555, ws: 15556, control: 15557 } as const;
