/** One (bucket, group) of an answer: the group's values for the grouped dimensions, counts per outcome. */
export interface AnalyticsRow {
  time: number;
  outcome?: string;
  keyId?: string;
  identityId?: string;
  tag?: string;
  apiId?: string;
  total: number;
  /** By outcome; outcomes with no verification are absent. */
  outcomes: Record<string, number>;
  creditsSpent: number;
}
