/**
 * Drops undefined members so that values satisfy exactOptionalPropertyTypes: an optional
 * member is either absent or defined, which is also what deep-equality round trips compare.
 */
export type Compact<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

export function compact<T extends object>(value: T): Compact<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Compact<T>;
}
