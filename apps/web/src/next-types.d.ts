// Next's ambient types (CSS modules, images) for `tsc` runs before any `next build` wrote next-env.d.ts.
/// <reference types="next" />
/// <reference types="next/image-types/global" />
