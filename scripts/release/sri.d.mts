// The types of scripts/release/sri.mjs (test/release/release.test.ts runs its check).
export declare const SRI_DOC: string;
export declare const CARRIED_BUILD: string;
export declare function sri(bytes: Uint8Array | string): string;
export declare function pinnedTag(version: string, integrity: string): string;
export declare function sriProblems(file?: string): string[];
export declare function writeSri(file?: string): boolean;
