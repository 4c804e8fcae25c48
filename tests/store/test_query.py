"""The query parser (store/search/query.py): words, phrases, filters, bad and half-typed filters."""





def test_parse_query_splits_words_phrases_and_filters():
    from store.search.query import parse_query

    q = parse_query('graph "message passing" status:unr tag:rl -tag:maybe author:Peyré star:>=2 year:2024 '
                    'kw:"federated learning" -venue:iclr file:day2 topic:3 ')
    assert q.words == ["graph"] and q.phrases == ["message passing"]
    assert q.statuses == {"unread"} and q.tags == ["rl"] and q.not_tags == ["maybe"]
    assert q.authors == ["peyre"] and q.keywords == ["federated learning"] and q.not_venues == ["iclr"]
    assert q.files == ["day2"] and q.topics == {3} and q.star[1] == 2 and q.year[1] == 2024
    assert q.star_ok(3) and not q.star_ok(1) and q.has_filters and q.trailing_space
    assert not q.errors


def test_parse_query_reports_bad_filters_and_waits_for_half_typed_ones():
    from store.search.query import parse_query

    q = parse_query("status:zzz star:x topic:a year:20245")
    assert len(q.errors) == 4 and "unknown status 'zzz'" in q.errors[0]
    half = parse_query("tag: year:20 star:")  # still being typed: no filter and no error
    assert not half.errors and not half.tags and half.year is None and half.star is None
    assert parse_query("star:5").errors == ["star filter '5': stars go 0-3"]


def test_parse_query_similar_and_recommend():
    from store.search.query import parse_query

    assert parse_query("similar:ABC123").similar == "abc123"
    assert parse_query("rec:").recommend == "stars" and parse_query("rec:RL").recommend == "rl"
