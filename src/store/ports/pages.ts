/** Keyset pagination: items with id > `after`, ascending by id, at most `limit`. */
export interface PageQuery {
  limit: number;
  after?: string;
}

/**
 * A keyset page narrowed by name and by id: `search` keeps records whose name contains it, ignoring case (matched
 * literally); `ids` keeps only records with one of these ids (a root key's per-resource grants). Absent: no filter.
 */
export interface NamedPageQuery extends PageQuery {
  search?: string;
  ids?: readonly string[];
}
