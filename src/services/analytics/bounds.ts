/** Most buckets one query may span: minute buckets for 33 hours, hours for 83 days, days for 5 years. */
export const MAX_BUCKETS = 2000;
