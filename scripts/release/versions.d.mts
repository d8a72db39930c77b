// The types of scripts/release/versions.mjs (test/release/release.test.ts runs its check).
export interface Place {
  file: string;
  pattern: string;
  first?: boolean;
  build?: string;
}
export declare const repo: string;
export declare const PLACES: Place[];
export declare function packageVersion(): string;
export declare function statedVersions(): (Place & { found: string[] })[];
export declare function versionProblems(version?: string): string[];
export declare function setVersion(version: string): void;
export declare function syncVersion(): void;
