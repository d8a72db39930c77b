// The types of scripts/release/zip.mjs (test/release/release.test.ts reads its output back).
export declare function zip(files: { name: string; data: Buffer }[]): Buffer;
