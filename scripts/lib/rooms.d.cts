/** The rooms of hand-written TypeScript that ships (scripts/lib/rooms.cjs). */
export declare const SHIPPED_ROOMS: readonly string[];
/** The rooms of hand-written TypeScript that never ships (scripts/lib/rooms.cjs). */
export declare const DEVELOPMENT_ROOMS: readonly string[];
