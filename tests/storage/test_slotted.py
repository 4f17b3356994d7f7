"""The slotted page format: cells, slots, free space, compaction, images, size limits."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagelab.storage import InteriorPage, LeafPage, max_key_bytes, max_value_bytes
from pagelab.storage.nodes import decode_tree_page, decode_tree_page_in_python
from pagelab.storage.slotted import HEADER_SIZE


@pytest.mark.parametrize(
    "page_size, max_key, max_value",
    [(1024, 244, 254), (4096, 1012, 1022), (16384, 4084, 4094), (65536, 16372, 16382)],
)
def test_size_limits_follow_the_page_size(page_size, max_key, max_value):
    assert max_key_bytes(page_size) == max_key
    assert max_value_bytes(page_size) == max_value
    usable = page_size - HEADER_SIZE
    assert 4 * (2 + 6 + max_key) <= usable  # four maximal interior cells fit
    assert 2 * (2 + 4 + max_key + max_value) <= usable  # two maximal leaf cells fit


def leaf_with(entries: dict[bytes, bytes], page_size: int = 1024) -> LeafPage:
    page = LeafPage(5, page_size)
    for key in sorted(entries):
        assert page.insert_at(len(page.keys), key, entries[key])
    return page


def test_a_leaf_keeps_its_cells_in_key_order_and_round_trips_through_its_image():
    entries = {b"b": b"two", b"a": b"one", b"c": b"", b"": b"empty key"}
    page = leaf_with(entries)
    page.link = 9
    assert page.keys == sorted(entries)
    again = decode_tree_page(5, page.image())
    assert isinstance(again, LeafPage)
    assert again.keys == page.keys and again.values() == [entries[k] for k in page.keys]
    assert again.link == 9 and again.used_bytes == page.used_bytes


def test_deleting_frees_bytes_that_compaction_reclaims():
    page = leaf_with({b"k%02d" % i: b"v" * 40 for i in range(20)})
    free_before = page.free_bytes
    for index in (15, 10, 5):
        page.delete_at(index)
    assert page.fragmented == 3 * (4 + 3 + 40)
    assert page.free_bytes == free_before + 3 * (2 + 4 + 3 + 40)
    expected = dict(zip(page.keys, page.values()))
    # a cell bigger than the contiguous gap but smaller than all free space forces a compaction
    gap = page.content_start - HEADER_SIZE - 2 * (len(page.keys) + 1)
    big = b"x" * (gap + 10 - 4 - 3)
    assert page.insert_at(len(page.keys), b"zzz", big)
    assert page.fragmented == 0
    expected[b"zzz"] = big
    assert dict(zip(page.keys, page.values())) == expected


def test_a_cell_that_does_not_fit_leaves_the_page_unchanged():
    page = leaf_with({b"k%02d" % i: b"v" * 40 for i in range(20)})
    image = page.image()
    assert not page.insert_at(0, b"a", b"x" * page.free_bytes)
    assert page.image() == image


def test_values_are_replaced_in_place_or_moved_when_their_length_changes():
    page = leaf_with({b"a": b"1111", b"b": b"2222"})
    offset = page.offsets[0]
    assert page.replace_value_at(0, b"9999")
    assert page.offsets[0] == offset and page.value_at(0) == b"9999"
    assert page.replace_value_at(0, b"a much longer value")
    assert page.values() == [b"a much longer value", b"2222"]
    assert not page.replace_value_at(1, b"y" * 2000)  # cannot fit a 1 KiB page
    assert page.value_at(1) == b"2222"


def test_an_interior_page_routes_by_its_cells_and_rightmost_child():
    page = InteriorPage(3, 4096)
    page.rebuild([b"m"], [10, 20])  # keys < m -> 10, keys >= m -> 20
    assert page.insert_separator(1, b"t", 30)  # child 20 split at t into 20 and 30
    assert page.keys == [b"m", b"t"] and page.children == [10, 20, 30]
    assert page.insert_separator(0, b"f", 40)  # child 10 split at f into 10 and 40
    assert page.keys == [b"f", b"m", b"t"] and page.children == [10, 40, 20, 30]
    again = decode_tree_page(3, page.image())
    assert isinstance(again, InteriorPage)
    assert again.keys == page.keys and again.children == page.children and again.link == 30


def test_a_64k_page_whose_end_offset_does_not_fit_16_bits_round_trips():
    empty = LeafPage(1, 65536)
    assert empty.content_start == 65536
    again = decode_tree_page(1, empty.image())
    assert again.content_start == 65536 and again.keys == []
    full = leaf_with({b"k%05d" % i: b"v" * 100 for i in range(500)}, page_size=65536)
    assert decode_tree_page(1, full.image()).values() == full.values()


@pytest.mark.parametrize("page_size", [1024, 16384])
def test_lookups_on_a_page_read_back_from_its_image_agree_with_the_decoded_page(page_size):
    """A page read from the file is searched through its raw slot array and never decoded by
    lookups; the answers must be the decoded page's, for present keys, absent keys between them,
    and both ends."""
    import random
    from bisect import bisect_right

    rng = random.Random(page_size)
    keys = sorted({rng.randbytes(rng.randint(1, 24)) for _ in range(400)})
    leaf = LeafPage(3, page_size)
    stored = [key for key in keys if leaf.insert_at(len(leaf.keys), key, key[::-1])]
    interior = InteriorPage(4, page_size)
    separators = stored[1::2]
    interior.rebuild(separators, list(range(100, 101 + len(separators))))

    raw_leaf = decode_tree_page(3, leaf.image())
    raw_interior = decode_tree_page(4, interior.image())
    probes = keys + [b"", b"\xff" * 30] + [key + b"\x00" for key in keys[::7]]
    for probe in probes:
        assert raw_leaf._keys is None and raw_interior._keys is None  # lookups never decode
        expected = stored.index(probe) if probe in stored else -1
        assert raw_leaf.find(probe) == expected
        if expected >= 0:
            assert raw_leaf.value_at(expected) == probe[::-1]
        assert raw_interior.child_for(probe) == 100 + bisect_right(separators, probe)
    assert raw_leaf.keys == stored and raw_interior.children == interior.children  # decoding on demand
    assert raw_leaf.find(stored[-1]) == len(stored) - 1 and raw_interior.link == 100 + len(separators)


@pytest.mark.parametrize("decode_tree_page", [decode_tree_page, decode_tree_page_in_python], ids=["c", "python"])
def test_a_decoded_page_has_every_field_a_new_page_has(decode_tree_page):
    """Both decodes set a tree page's own fields themselves (not through TreePage.__init__), so
    a field added to TreePage must be added there too; this catches one that is not."""
    from pagelab.storage.frames import Frame

    leaf = LeafPage(3, 4096)
    leaf.insert_at(0, b"k", b"v")
    interior = InteriorPage(4, 4096)
    interior.rebuild([b"m"], [10, 20])
    for page in (leaf, interior):
        decoded = decode_tree_page(page.page_no, page.image())
        for cls in type(page).__mro__:
            for field in getattr(cls, "__slots__", ()):
                if field.startswith("_saved_"):
                    continue  # set by snapshot(), read only after it
                assert hasattr(decoded, field), f"decode_tree_page does not set {field}"
        for field in Frame.__slots__:
            assert getattr(decoded, field) == getattr(page, field), field
        assert decoded.image() == page.image()


_SMALL_KEYS = st.binary(max_size=4).map(lambda raw: bytes(b % 3 * 127 for b in raw))  # bytes 0, 127, 254: many prefixes


@settings(max_examples=300, deadline=None)
@given(keys=st.sets(_SMALL_KEYS, min_size=1, max_size=60), probes=st.lists(_SMALL_KEYS, max_size=20))
def test_the_raw_search_orders_keys_as_python_bytes_do(keys, probes):
    """The raw search compares bytes in C (memcmp, then length): a key that is a prefix of another,
    the empty key and high bytes must sort exactly as Python's bytes do, or lookups on pages read
    from the file would disagree with the same pages decoded."""
    from bisect import bisect_right

    stored = sorted(keys)
    leaf = LeafPage(3, 1024)
    for key in stored:
        assert leaf.insert_at(len(leaf.keys), key, b"v")
    interior = InteriorPage(4, 1024)
    interior.rebuild(stored, list(range(100, 101 + len(stored))))
    raw_leaf = decode_tree_page(3, leaf.image())
    raw_interior = decode_tree_page(4, interior.image())
    for probe in [*stored, *probes]:
        assert raw_leaf.find(probe) == (stored.index(probe) if probe in keys else -1)
        assert raw_interior.child_for(probe) == 100 + bisect_right(stored, probe)


def test_a_slot_pointing_past_the_page_end_is_reported_as_damage_not_read():
    """A damaged slot array must not make the C search read outside the page."""
    from pagelab.storage.errors import StorageError

    leaf = LeafPage(3, 1024)
    for index, key in enumerate([b"a", b"b", b"c"]):
        leaf.insert_at(index, key, b"value")
    interior = InteriorPage(4, 1024)
    interior.rebuild([b"m", b"t"], [10, 20, 30])
    for page, search in ((leaf, "find"), (interior, "child_for")):
        image = bytearray(page.image())
        image[HEADER_SIZE + 2 : HEADER_SIZE + 4] = (1022).to_bytes(2, "little")  # the middle cell's slot: 2 bytes before the end
        damaged = decode_tree_page(page.page_no, image)
        with pytest.raises(StorageError, match=f"page {page.page_no}: .*past the end of the 1024-byte page.*damaged"):
            getattr(damaged, search)(b"b")


def test_the_c_search_refuses_a_slot_array_that_is_not_u16():
    from array import array

    from pagelab.storage._cellsearch import interior_child, leaf_find

    page = LeafPage(3, 1024)
    page.insert_at(0, b"a", b"value")
    image = bytearray(page.image())
    for search in (leaf_find, interior_child):
        with pytest.raises(TypeError, match="offsets must be a buffer of u16"):
            search(image, array("I", [1000]), b"a")
    assert leaf_find(image, memoryview(page.offsets.tobytes()).cast("H"), b"a") == 0  # any u16 buffer will do


@settings(max_examples=200, deadline=None)
@given(entries=st.dictionaries(st.binary(max_size=12), st.binary(max_size=30), max_size=25), data=st.data())
def test_a_layout_holds_the_chosen_cells_in_key_order_with_the_new_one_in_place(entries, data):
    """lay_out (C) is what splits and compaction build pages from: cells first..stop-1 of the
    page's cells with a new cell put in at insert_at, and nothing else."""
    page = leaf_with(entries, 4096)
    deleted = data.draw(st.sets(st.sampled_from(sorted(entries))) if entries else st.just(set()))
    for key in deleted:  # holes in the content area, so the layout is not a copy of one byte range
        page.delete_at(page.keys.index(key))
    kept = [(key, entries[key]) for key in page.keys]
    insert_at = data.draw(st.integers(-1, len(kept)))
    new = (b"\xffnew", b"value")
    cells = kept if insert_at < 0 else [*kept[:insert_at], new, *kept[insert_at:]]
    first = data.draw(st.integers(0, len(cells)))
    stop = data.draw(st.integers(first, len(cells)))
    laid = LeafPage.with_layout(6, 4096, [key for key, _ in cells[first:stop]],
                                page.lay_out(insert_at, LeafPage.make_cell(*new), first, stop), 0)  # fmt: skip
    reread = decode_tree_page(6, laid.image())
    assert [(reread.keys[index], reread.value_at(index)) for index in range(len(reread.keys))] == cells[first:stop]
    assert reread.free_bytes == laid.free_bytes and laid.fragmented == 0
    assert laid.content_start == 4096 - sum(4 + len(key) + len(value) for key, value in cells[first:stop])
    assert page.cell_sizes() == [4 + len(key) + len(value) for key, value in kept]


def test_sizes_and_layouts_of_a_damaged_page_name_the_damage():
    from pagelab.storage.errors import StorageError

    page = leaf_with({b"a": b"one", b"b": b"two", b"c": b"three"})
    image = bytearray(page.image())
    image[HEADER_SIZE + 2 : HEADER_SIZE + 4] = (1022).to_bytes(2, "little")  # a cell 2 bytes before the end
    damaged = decode_tree_page(5, image)
    for call in (damaged.cell_sizes, damaged.compact, lambda: damaged.lay_out(0, b"", 0, 3)):
        with pytest.raises(StorageError, match="page 5: .*past the end of the 1024-byte page.*damaged"):
            call()
    with pytest.raises(StorageError, match=r"page 5: 3 cells of 1513 bytes do not fit in a 1024-byte page$"):
        page.lay_out(1, LeafPage.make_cell(b"big", b"x" * 1490), 0, 3)
    with pytest.raises(IndexError, match="cells 0..5"):
        page.lay_out(-1, b"", 0, 5)


def _fields(page) -> dict:
    return {field: getattr(page, field) for cls in type(page).__mro__ for field in getattr(cls, "__slots__", ())
            if not field.startswith("_saved_")}  # fmt: skip


@pytest.mark.parametrize("page_size", [1024, 4096, 65536])
def test_the_c_decode_gives_the_python_decodes_page(page_size):
    """decode_tree_page (C) and decode_tree_page_in_python give pages of the same type with the
    same value in every field, from bytes and from a bytearray, which both keep without a copy."""
    import random

    picker = random.Random(page_size)
    leaf = LeafPage(7, page_size)
    while leaf.insert_at(len(leaf.offsets), b"%08d" % len(leaf.offsets), picker.randbytes(picker.randint(0, 30))):
        pass
    leaf.delete_at(3)  # a hole: fragmented bytes in the header
    leaf.link = 99
    interior = InteriorPage(8, page_size)
    interior.rebuild([b"%06d" % number for number in range(20)], list(range(100, 121)))
    empty = LeafPage(9, page_size)
    for page in (leaf, interior, empty):
        image = page.image()
        for given in (image, bytearray(image)):
            in_c, in_python = decode_tree_page(page.page_no, given), decode_tree_page_in_python(page.page_no, given)
            assert type(in_c) is type(in_python) is type(page)
            assert _fields(in_c) == _fields(in_python)
            assert type(in_c.data) is bytearray and (in_c.data is given) == (type(given) is bytearray)
            assert in_c.image() == image and in_c.keys == page.keys


@pytest.mark.parametrize("damage", ["type", "count", "content_start", "fragmented", "short"])
def test_an_image_the_c_decode_does_not_take_gets_the_python_decodes_error(damage):
    page = LeafPage(5, 4096)
    page.insert_at(0, b"key", b"value")
    image = bytearray(page.image())
    if damage == "type":
        image[0] = 7
    elif damage == "count":
        image[2:4] = (3000).to_bytes(2, "little")
    elif damage == "content_start":
        image[4:8] = (5000).to_bytes(4, "little")
    elif damage == "fragmented":
        image[8:12] = (5000).to_bytes(4, "little")
    else:
        image = image[:10]
    with pytest.raises(Exception) as in_python:
        decode_tree_page_in_python(5, image)
    with pytest.raises(type(in_python.value), match=re.escape(str(in_python.value))):
        decode_tree_page(5, image)
