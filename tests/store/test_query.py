"""The query parser (store/search/query.py): words, phrases, filters, bad and half-typed filters."""





def test_parse_query_splits_words_phrases_and_filters():
    from store.search.query import parse_query

    q = parse_query('graph "message passing" status:unr tag:rl -tag:maybe author:Peyré star:>=2 year:2024 '
                    'kw:"federated learning" -venue:iclr file:day2 topic:3 ')
    assert q.words == ["graph"] and q.values("phrase") == ["message passing"]
    assert q.values("status") == ["unread"] and q.values("tag") == ["rl"] and q.values("tag", negated=True) == ["maybe"]
    assert q.values("author") == ["peyre"] and q.values("kw") == ["federated learning"]
    assert q.values("venue", negated=True) == ["iclr"] and not q.values("venue")
    assert q.values("file") == ["day2"] and q.values("topic") == ["3"]
    assert q.comparison("star")[1] == 2 and q.comparison("year")[1] == 2024 and q.comparison("year", negated=True) is None
    passes = q.mark_test()
    assert passes("unread", 3, ["rl"]) and not passes("unread", 1, ["rl"]) and not passes("unread", 3, ["rl", "maybe"])
    assert not passes("read", 3, ["rl"]) and q.has_filters and q.trailing_space
    assert [f.kind for f in q.filters] == ["phrase", "status", "tag", "tag", "author", "star", "year", "kw", "venue",
                                           "file", "topic"]  # (in the order typed; each negatable)
    assert not q.errors


def test_one_filter_list_each_negatable_and_star_and_year_the_last_typed():
    from store.search.query import parse_query

    q = parse_query('-"a phrase" -word -status:read status:to -star:0 star:1 star:>=2 year:2020 -year:2021 '
                    "-id:0123456789ab 0123456789ac -topic:4 -kw:rl -author:smith -file:day1 by:ana -assigned: new:")
    assert [(f.kind, f.negated) for f in q.of("phrase")] == [("phrase", True), ("phrase", True)]
    assert q.values("phrase", negated=True) == ["a phrase", "word"]
    passes = q.mark_test()
    assert passes("to-read", 2, []) and not passes("read", 2, []) and not passes("unread", 2, [])
    assert q.comparison("star")[1] == 2 and q.comparison("star", negated=True)[1] == 0 and len(q.of("star")) == 2
    assert passes("to-read", 3, []) and not passes("to-read", 1, []) and q.has_annotation_filters
    assert q.values("id") == ["0123456789ac"] and q.values("id", negated=True) == ["0123456789ab"]
    assert q.values("topic", negated=True) == ["4"] and q.values("kw", negated=True) == ["rl"]
    assert q.values("author", negated=True) == ["smith"] and q.values("file", negated=True) == ["day1"]
    assert [(f.kind, f.value, f.negated) for f in q.of("by", "assigned", "new")] == [
        ("by", "ana", False), ("assigned", "", True), ("new", "", False)]
    assert not q.words and not q.errors and q.has("year") and not q.has("venue")


def test_parse_query_reports_bad_filters_and_waits_for_half_typed_ones():
    from store.search.query import parse_query

    q = parse_query("status:zzz star:x topic:a year:20245")
    assert len(q.errors) == 4 and "unknown status 'zzz'" in q.errors[0]
    half = parse_query("tag: year:20 star:")  # still being typed: no filter and no error
    assert not half.errors and not half.filters
    assert parse_query("star:5").errors == ["star filter '5': stars go 0-3"]


def test_parse_query_similar_and_recommend():
    from store.search.query import parse_query

    assert parse_query("similar:ABC123").similar == "abc123"
    assert parse_query("rec:").recommend == "stars" and parse_query("rec:RL").recommend == "rl"


def test_or_joins_the_words_and_phrases_beside_it_into_one_group_and_refuses_what_it_cannot_join():
    from store.search.either import OR_BETWEEN_WORDS, or_not_filters, too_common
    from store.search.query import parse_query

    q = parse_query("preference RLHF OR dpo OR kto tuning")
    assert q.words == ["preference", "rlhf", "dpo", "kto", "tuning"] and q.either == [["rlhf", "dpo", "kto"]]
    assert not q.errors and not q.refused
    assert [sorted(g) for g in parse_query("graph OR tree node OR graph").either] == [["graph", "node", "tree"]]
    assert parse_query("sim-to-real OR sim2real").either == [["sim-to-real", "sim-2-real"]]
    # a phrase beside OR is one alternative: its words standing together, as a compound term, no filter
    q = parse_query('"graph neural" OR transformer diffusion OR "flow matching"')
    assert q.either == [["graph-neural", "transformer"], ["diffusion", "flow-matching"]] and not q.filters
    assert parse_query('"exact phrase" graph').values("phrase") == ["exact phrase"]  # (alone: a filter, as ever)
    # "or" in lower case is the stop word it always was
    assert parse_query("graph or tree").either == [] and parse_query("graph or tree").words == ["graph", "or", "tree"]
    for text in ("OR graph", "graph OR", "graph OR OR tree", "OR", '"" OR graph'):
        q = parse_query(text)
        assert q.errors == [OR_BETWEEN_WORDS] and q.refused, text
    for text in ("graph OR tag:rl", "tag:rl OR graph", "graph OR -tree", "status:read OR graph"):
        q = parse_query(text)
        assert q.errors == [or_not_filters(text.replace(" OR ", " "))] and q.refused, text
    # what is said is the query asked without the OR, not one example for every query
    assert parse_query("kw:bandit  OR regret").errors == ["OR joins words and phrases, not filters: leave it out "
                                                          "(kw:bandit regret)"]
    q = parse_query("graph OR the")
    assert q.errors == [too_common("the")] and q.refused
    # while typed in the app, the word after a trailing OR is still to come (nothing said yet), and
    # OR itself, the word being typed, may become another ("ORPO"): a word until it is followed
    assert not parse_query("graph OR ", cursor=9).refused and parse_query("graph OR t", cursor=10).either == [["graph", "t"]]
    q = parse_query("graph OR", cursor=8)
    assert not q.refused and not q.either and q.typing == "or"


def test_rec_typed_on_its_way_to_stars_is_stars_not_a_tag():
    """While the cursor is on it, rec:s, rec:sta ... are rec:stars being typed; done (the command
    line, the cursor elsewhere), rec:sta is the tag it names."""
    from store.search.query import parse_query

    assert [parse_query(f"rec:{v}", cursor=4 + len(v)).recommend for v in ("s", "sta", "stars")] == ["stars"] * 3
    assert parse_query("rec:sta").recommend == "sta" and parse_query("rec:sta graph", cursor=13).recommend == "sta"
    assert parse_query("rec:rl", cursor=6).recommend == "rl"
