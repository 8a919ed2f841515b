// Types of dist-stamp.mjs for the tests that import it (test/unit/dist-stamp.test.ts).
export declare const STAMP: string;
export declare function staleReason(root: string): string | null;
export declare function writeStamp(root: string): void;
