"""The one indefinite-article rule Polish, the image table's build and the NLI augmentation share."""
import pytest

from studio.figures.articles import indefinite_article, with_indefinite_article


@pytest.mark.parametrize("word, article", [
    ("owl", "an"), ("stone", "a"), ("hour", "an"), ("honest", "an"), ("heir", "an"), ("horse", "a"),
    ("unicorn", "a"), ("user", "a"), ("utensil", "a"), ("ukulele", "a"), ("uniform", "a"), ("euro", "a"),
    ("ewe", "a"), ("one-horse", "a"), ("uninvited", "an"), ("umbrella", "an"), ("urn", "an"), ("usher", "an"),
    ("egg", "an"), ("Iceberg", "an"), ("ox", "an"), ("oak", "an"), ("usage", "a"), ("unanimous", "a"), ("uvula", "a"),
    ("Ukrainian", "a"), ("onesie", "a"), ("Ouija", "a"), ("unable", "an"), ("urge", "an"), ("umpire", "an"),
])
def test_the_article_follows_the_sound_not_the_letter(word, article):
    assert indefinite_article(word) == article


def test_with_indefinite_article():
    assert with_indefinite_article("old owl") == "an old owl"
    assert with_indefinite_article("unicorn") == "a unicorn"


def test_a_vehicle_that_points_is_no_image():
    from studio.figures.articles import points

    assert points("this car") and points("My mother") and points("any room")
    assert not points("those of a bull") and not points("a car") and not points("the sun") and not points("")
