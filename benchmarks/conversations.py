"""Synthetic long conversations between two people, with labelled questions (the retrieval yardstick).

Each conversation is 17 sessions spread over about six months, 300+ turns, written the way people
chat: greetings, "haha yes", "Wow! Did you see that band?", names and nicknames everywhere. Woven
into the small talk are 29 life stories (a new pet, a job offer, a trip, an injury, ...), told by
one of the two, some across two sessions. Each story labels its evidence turns and asks questions
of four kinds:

- single: one fact from one turn ("What position did Jon interview for?")
- multi: facts from two sessions ("Which company hired Jon, and when does he start?")
- temporal: when something happened ("When did Jon hear back about the job?")
- open: an inference from what was said ("What would be a thoughtful gift for Jon?")

Questions are paraphrased as a reader of the chat would ask them, so keyword overlap alone is not
enough: the answer turn often shares no word with the question while the turn before it does
("What dance were you doing?" -> "A contemporary piece called 'Finding Freedom'"), and the other
person's small talk touches the same topics (hard negatives). Everything follows one seed.

    python benchmarks/conversations.py --seed 12 --show 0     (print one conversation and its questions)
"""
from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

KINDS = ("single", "multi", "temporal", "open")


@dataclass(frozen=True)
class Person:
    name: str
    nick: str
    sub: str  # she / he
    obj: str  # her / him
    pos: str  # her / his


PAIRS = [
    (Person("Caroline", "Caro", "she", "her", "her"), Person("Melanie", "Mel", "she", "her", "her")),
    (Person("Jon", "Jonny", "he", "him", "his"), Person("Gina", "G", "she", "her", "her")),
    (Person("Priya", "Pri", "she", "her", "her"), Person("Sam", "Sammy", "he", "him", "his")),
    (Person("Marcus", "Marc", "he", "him", "his"), Person("Dana", "D", "she", "her", "her")),
]


@dataclass
class Story:
    """A life event told by its owner (O) to the friend (F), in one or two sessions.

    Turns are (speaker, text) or (speaker, text, evidence key); questions are (kind, text, evidence
    keys, answer). Texts are format strings over the variant's slots and the two people.
    """
    name: str
    variants: list[dict[str, str]]
    parts: list[list[tuple[str, ...]]]
    questions: list[tuple[str, str, list[str], str]]


STORIES = [
    Story("pet", [
        dict(species="dog", pet="Biscuit", desc="two-year-old beagle mix", place="the shelter on Elm Street",
             pp="he", PP="He", ppo="him", item="one of my running shoes"),
        dict(species="cat", pet="Pepper", desc="grumpy old tabby", place="the rescue near the library",
             pp="she", PP="She", ppo="her", item="the new curtains"),
        dict(species="puppy", pet="Mochi", desc="corgi with one floppy ear", place="a rescue in Millbrook",
             pp="he", PP="He", ppo="him", item="the couch cushions"),
    ], [
        [("O", "ok big news... I adopted a {species} 🐾"),
         ("F", "WHAT. No way!! What's the name??"),
         ("O", "{pet}! {PP}'s a {desc}, we got {ppo} from {place}", "name"),
         ("F", "{pet} 😭 that's adorable"),
         ("O", "We brought {ppo} home last Saturday and {pp} already rules the apartment haha", "when")],
        [("F", "how's {pet} doing?"),
         ("O", "A menace lol. Yesterday {pp} chewed up {item}", "chew"),
         ("F", "hahaha rip")],
    ], [
        ("single", "What did {O} name the {species} {sub} adopted?", ["name"], "{pet}"),
        ("temporal", "When did {O} bring {pet} home?", ["when"], "the Saturday before {d0}"),
        ("multi", "What did the rescue {species} {O} adopted chew up?", ["name", "chew"], "{item}"),
    ]),
    Story("music", [
        dict(instrument="cello", teacher="Mrs. Alvarez", day="Tuesday", piece="the Bach prelude"),
        dict(instrument="ukulele", teacher="this guy Dev", day="Thursday", piece="Somewhere Over the Rainbow"),
        dict(instrument="piano", teacher="an old jazz pianist named Walt", day="Wednesday", piece="Clair de Lune"),
    ], [
        [("O", "So I started {instrument} lessons this month 🎶", "start"),
         ("F", "Wait since when are you musical haha"),
         ("O", "Since now!! My teacher is {teacher}, so patient with me, we meet every {day} evening", "teacher"),
         ("F", "love that for you {o}")],
        [("F", "are you still practicing?"),
         ("O", "Every night! I can almost get through {piece} without stopping", "piece"),
         ("F", "Wow!! Private concert soon? 😄"),
         ("O", "lol give me a year")],
    ], [
        ("single", "Who is {O}'s {instrument} teacher?", ["teacher"], "{teacher}"),
        ("single", "On which evening does {O} have lessons?", ["teacher"], "{day}"),
        ("multi", "What instrument is {O} learning and what piece can {sub} almost play?", ["start", "piece"],
         "{instrument}; {piece}"),
        ("open", "Would {O} appreciate sheet music as a gift?", ["start", "piece"], "yes, for the {instrument}"),
    ]),
    Story("job", [
        dict(role="junior designer", company="Brightside Studio", perk="creative"),
        dict(role="lab technician", company="Norvel Biotech", perk="hands-on"),
        dict(role="sous chef", company="Osteria Lume", perk="exciting"),
    ], [
        [("O", "ugh I have an interview Thursday and I'm so nervous"),
         ("F", "You'll crush it!! what's it for?"),
         ("O", "{role} at {company}. Way more {perk} than what I do now", "role"),
         ("F", "fingers crossed 🤞")],
        [("O", "{f}!!!! they called this morning, I GOT THE JOB", "offer"),
         ("F", "AHHH congrats!! I knew you would"),
         ("O", "I start on the 1st, still can't believe it", "start")],
    ], [
        ("single", "What position did {O} interview for?", ["role"], "{role}"),
        ("temporal", "When did {O} hear back about the job?", ["offer"], "the morning of {d1}"),
        ("multi", "Which company hired {O}, and when does {sub} start?", ["role", "start"], "{company}; on the 1st"),
    ]),
    Story("trip", [
        dict(country="Portugal", city="Lisbon", highlight="the tram ride up to the castle at sunset",
             food="pastel de nata"),
        dict(country="Japan", city="Kyoto", highlight="walking through the bamboo forest at 6am", food="ramen"),
        dict(country="Mexico", city="Oaxaca", highlight="the Day of the Dead parade", food="mole"),
    ], [
        [("O", "We just booked flights to {country}!!! ✈️", "book"),
         ("F", "Jealous!! how long are you going for?"),
         ("O", "Ten days. {city} first, then we'll figure it out lol", "plan")],
        [("F", "Welcome back!! How was {country}??"),
         ("O", "Unreal. We got back Sunday night and I'm still a zombie", "back"),
         ("O", "Best part was {highlight}", "high"),
         ("F", "stop I'm so jealous"),
         ("O", "also the food!! I ate {food} literally every day, no regrets", "food")],
    ], [
        ("single", "Which city did {O} plan to visit first?", ["plan"], "{city}"),
        ("temporal", "When did {O} return from {country}?", ["back"], "the Sunday before {d1}"),
        ("multi", "What was the highlight of {O}'s trip and which country was it in?", ["book", "high"],
         "{highlight}; {country}"),
        ("open", "What food would {O} probably order at a restaurant?", ["food"], "{food}"),
    ]),
    Story("race", [
        dict(race="Riverside Half Marathon", short="half marathon", time="1:52", month="October"),
        dict(race="Harbor 10K", short="10K", time="48 minutes", month="June"),
        dict(race="Cedar Trail 25K", short="trail race", time="3 hours 10", month="September"),
    ], [
        [("O", "I signed up for the {race} 😬", "signup"),
         ("F", "you're insane haha. When is it?"),
         ("O", "{month}. Training starts Monday")],
        [("O", "I ran the {short} yesterday!!", "ran"),
         ("F", "AND?? what was your time?"),
         ("O", "{time}! My legs are destroyed but I'm so happy", "time"),
         ("F", "WOW {o} that's amazing")],
    ], [
        ("single", "What was {O}'s finishing time?", ["time"], "{time}"),
        ("temporal", "When did {O} run the {short}?", ["ran"], "the day before {d1}"),
        ("multi", "What race did {O} sign up for and what was {pos} time?", ["signup", "time"], "{race}; {time}"),
        ("open", "Would {O} likely want to join a running club?", ["signup", "time"], "yes"),
    ]),
    Story("moving", [
        dict(hood="Ashford", detail="two bedrooms, right by the river path"),
        dict(hood="the Old Town", detail="tiny but it has a balcony"),
        dict(hood="Greenhill", detail="a little house with a yard"),
    ], [
        [("O", "We found a place!! Moving to {hood} next month", "found"),
         ("F", "Ooh what's it like?"),
         ("O", "{detail} 😍", "detail")],
        [("O", "Finally unpacked the last box this weekend", "unpack"),
         ("F", "Yay! Housewarming when?"),
         ("O", "haha once I find the wine glasses")],
    ], [
        ("single", "Which neighborhood is {O} moving to?", ["found"], "{hood}"),
        ("single", "What is {O}'s new apartment like?", ["detail"], "{detail}"),
        ("temporal", "When did {O} finish settling into the new place?", ["unpack"], "the weekend before {d1}"),
        ("multi", "Which neighborhood did {O} move to and when was {sub} done unpacking?", ["found", "unpack"],
         "{hood}; the weekend before {d1}"),
    ]),
    Story("visit", [
        dict(relative="sister", rel="Anya", place="Denver"),
        dict(relative="brother", rel="Luis", place="Toronto"),
        dict(relative="grandma", rel="Nana Ruth", place="Florida"),
    ], [
        [("O", "My {relative} {rel} flew in from {place} on Friday", "visit"),
         ("F", "Oh fun! How long is {rel} staying?"),
         ("O", "Just till Wednesday, so we're cramming everything in", "stay")],
    ], [
        ("single", "Where does {O}'s {relative} live?", ["visit"], "{place}"),
        ("temporal", "When did {rel} arrive?", ["visit"], "the Friday before {d0}"),
    ]),
    Story("craft", [
        dict(craft="pottery", made="A bowl! It's lopsided but it's mine"),
        dict(craft="watercolor", made="A painting of the harbor, don't laugh"),
        dict(craft="woodworking", made="A little spice rack, only slightly crooked"),
    ], [
        [("O", "Look what I made in {craft} class!! {made}", "craft"),
         ("F", "omg it's beautiful"),
         ("O", "it's the only two hours a week where my brain goes quiet", "feel")],
    ], [
        ("single", "What did {O} make in class?", ["craft"], "{made}"),
        ("open", "What would {O} likely do to unwind after a stressful week?", ["craft", "feel"], "{craft}"),
    ]),
    Story("book", [
        dict(book="The Night Circus", author="Erin Morgenstern", genre="fantasy"),
        dict(book="Project Hail Mary", author="Andy Weir", genre="science fiction"),
        dict(book="Pachinko", author="Min Jin Lee", genre="historical family sagas"),
    ], [
        [("O", "I just finished {book}, best book I've read all year", "book"),
         ("F", "is it good? I need something to read"),
         ("O", "Yes! You have to read it, {author} is a genius", "rec")],
    ], [
        ("single", "Which author did {O} recommend to {F}?", ["rec"], "{author}"),
        ("open", "What kind of books would {O} enjoy?", ["book"], "{genre}"),
    ]),
    Story("concert", [
        dict(band="The Lumineers", venue="the Fox Theater"),
        dict(band="Khruangbin", venue="Red Rocks"),
        dict(band="Arctic Monkeys", venue="the arena downtown"),
    ], [
        [("F", "Wow! Did you see that band you were talking about?"),
         ("O", "YES! {band} at {venue} on Friday night, I screamed my throat raw", "band"),
         ("F", "haha jealous")],
    ], [
        ("single", "Which band did {O} see live?", ["band"], "{band}"),
        ("temporal", "When did {O} go to the {band} concert?", ["band"], "the Friday before {d0}"),
    ]),
    Story("injury", [
        dict(injury="sprained my ankle", sport="basketball", where="court"),
        dict(injury="twisted my knee", sport="soccer", where="field"),
        dict(injury="jammed two fingers", sport="volleyball", where="court"),
    ], [
        [("O", "Soooo I {injury} playing {sport} last night 🙃", "hurt"),
         ("F", "oh no!! are you ok?"),
         ("O", "I'll live, doctor says a week of rest though")],
        [("O", "Doctor cleared me today! Back on the {where} on Saturday", "cleared"),
         ("F", "yesss")],
    ], [
        ("single", "How did {O} get hurt?", ["hurt"], "{injury} playing {sport}"),
        ("temporal", "When did {O} get injured?", ["hurt"], "the night before {d0}"),
        ("multi", "What sport was {O} playing when {sub} got hurt, and when was {sub} allowed to play again?",
         ["hurt", "cleared"], "{sport}; {d1}"),
    ]),
    Story("cooking", [
        dict(dish="lasagna", result="I burnt the edges but the sauce was perfect"),
        dict(dish="pho", result="the broth took eight hours lol but worth it"),
        dict(dish="sourdough", result="it came out flat as a pancake"),
    ], [
        [("O", "Tried making {dish} from scratch this weekend", "dish"),
         ("F", "how did it turn out?"),
         ("O", "Honestly? {result}", "result"),
         ("F", "haha still counts")],
    ], [
        ("single", "What did {O} cook from scratch?", ["dish"], "{dish}"),
        ("open", "Would {O} likely enjoy a cooking class?", ["dish", "result"], "yes"),
    ]),
    Story("volunteer", [
        dict(place="the animal shelter", task="walk the dogs and clean kennels", cause="animal welfare"),
        dict(place="the food bank", task="sort donations and pack boxes", cause="fighting hunger"),
        dict(place="the community garden", task="teach kids how to plant stuff", cause="green spaces"),
    ], [
        [("O", "I started volunteering at {place} on Saturdays", "vol"),
         ("F", "that's so sweet, what do you do there?"),
         ("O", "Mostly {task}. Exhausting but the best part of my week", "task")],
    ], [
        ("single", "What does {O} do when volunteering?", ["task"], "{task}"),
        ("open", "Which charity would {O} most likely donate to?", ["vol", "task"], "{cause}"),
    ]),
    Story("car", [
        dict(car="a used Subaru Outback"),
        dict(car="a little red Honda Fit"),
        dict(car="a 2015 Toyota Prius"),
    ], [
        [("O", "My car died on the highway this morning, smoke and everything", "broke"),
         ("F", "omg are you ok??"),
         ("O", "yeah just shaken. mechanic says it's not worth fixing")],
        [("O", "Meet my new baby: {car} 🚗", "bought"),
         ("F", "ooh fancy!!")],
    ], [
        ("temporal", "When did {O}'s old car break down?", ["broke"], "the morning of {d0}"),
        ("single", "What car did {O} buy to replace the old one?", ["bought"], "{car}"),
        ("multi", "Why did {O} need a new car, and what did {sub} buy?", ["broke", "bought"],
         "the old one died on the highway; {car}"),
    ]),
    Story("garden", [
        dict(crop="tomatoes"), dict(crop="zucchini"), dict(crop="strawberries"),
    ], [
        [("O", "The {crop} in my garden finally came in!!", "garden"),
         ("F", "Jealous, mine all died lol"),
         ("O", "I'm out there every morning with my coffee talking to them haha", "garden2")],
    ], [
        ("single", "What is {O} growing in {pos} garden?", ["garden"], "{crop}"),
        ("open", "What hobby would {O} likely bring up at a dinner party?", ["garden", "garden2"], "gardening"),
    ]),
    Story("school", [
        dict(kid="Leo"), dict(kid="Maya"), dict(kid="Sofia"),
    ], [
        [("O", "{kid} started kindergarten on Monday 🥹", "school"),
         ("F", "omg already?! how did it go?"),
         ("O", "{kid} didn't even look back. I cried in the car though lol", "cry")],
    ], [
        ("temporal", "When did {O}'s kid start kindergarten?", ["school"], "the Monday before {d0}"),
        ("single", "What is {O}'s child called?", ["school"], "{kid}"),
    ]),
    Story("dance", [
        dict(style="contemporary", piece="Finding Freedom"),
        dict(style="jazz", piece="Red Thread"),
        dict(style="modern", piece="Tidal"),
    ], [
        [("O", "We had our showcase yesterday!!", "show"),
         ("F", "What dance were you doing?"),
         ("O", "A {style} piece called '{piece}'. I was so nervous but nailed it", "piece"),
         ("F", "Wow! that's amazing {o}")],
    ], [
        ("single", "What dance piece did {O} perform?", ["piece"], "{piece}"),
        ("temporal", "When was {O}'s dance showcase?", ["show"], "the day before {d0}"),
    ]),
    Story("language", [
        dict(language="Spanish", reason="so I can finally talk to my in-laws lol"),
        dict(language="Italian", reason="my grandpa spoke it and I never learned"),
        dict(language="Korean", reason="too many K-dramas, honestly"),
    ], [
        [("O", "I've been practicing {language} every morning, 100 day streak!", "lang"),
         ("F", "whoa nice, why {language}?"),
         ("O", "{reason}", "why")],
    ], [
        ("single", "What language is {O} studying?", ["lang"], "{language}"),
        ("single", "Why is {O} learning {language}?", ["why"], "{reason}"),
    ]),
    Story("party", [
        dict(guest="my mom's 60th", where="Her favorite Italian place downtown"),
        dict(guest="my roommate Kim", where="The rooftop of our building"),
        dict(guest="my dad's retirement", where="My uncle's backyard"),
    ], [
        [("O", "Planning a surprise party for {guest}!! Don't tell anyone", "party"),
         ("F", "lol who would I tell. where?"),
         ("O", "{where}, next Saturday", "where")],
    ], [
        ("single", "Who is {O} throwing a surprise party for?", ["party"], "{guest}"),
        ("single", "Where will the surprise celebration be held?", ["where"], "{where}"),
    ]),
    Story("hike", [
        dict(peak="Mount Tam"), dict(peak="Eagle Peak"), dict(peak="Hawk Ridge"),
    ], [
        [("O", "We hiked {peak} on Sunday, the view was worth every step", "hike"),
         ("F", "ugh I love that. how long did it take?"),
         ("O", "Six hours round trip, I'm still sore lol", "long")],
    ], [
        ("temporal", "When did {O} go hiking?", ["hike"], "the Sunday before {d0}"),
        ("open", "Would {O} likely enjoy a weekend in the mountains?", ["hike", "long"], "yes"),
    ]),
    Story("show", [
        dict(show="The Bear"), dict(show="Severance"), dict(show="Shogun"),
    ], [
        [("O", "I binged all of {show} this weekend, zero regrets", "show"),
         ("F", "isn't that the one everyone's talking about?"),
         ("O", "yes and it deserves it. the finale!!!")],
    ], [
        ("single", "What series did {O} watch over the weekend?", ["show"], "{show}"),
    ]),
    Story("photo", [
        dict(gallery="the Maple Street Gallery", photo="an old fisherman mending his nets"),
        dict(gallery="the library's spring show", photo="my grandma's hands"),
        dict(gallery="the Riverside art fair", photo="fog rolling over the bay"),
    ], [
        [("O", "I submitted one of my photos to {gallery} 😬", "sub"),
         ("F", "Which one?!"),
         ("O", "the one of {photo}", "photo")],
        [("O", "{f} they accepted it!!! Opening is next Friday", "accepted"),
         ("F", "I'm coming!! so proud of you")],
    ], [
        ("multi", "Which of {O}'s photos was accepted into the show?", ["photo", "accepted"], "{photo}"),
        ("temporal", "When did {O} learn the photo was accepted?", ["accepted"], "{d1}"),
        ("open", "What creative hobby does {O} take seriously?", ["sub", "photo"], "photography"),
    ]),
    Story("engaged", [
        dict(partner="Dave", place="on the beach in Santa Cruz"),
        dict(partner="Alex", place="at the top of the Ferris wheel"),
        dict(partner="Jordan", place="in the garden where we met"),
    ], [
        [("O", "{partner} and I have been together three years today 🥹", "date"),
         ("F", "aww happy anniversary!!")],
        [("O", "{f}. {F}. I'M ENGAGED 💍 last night!!", "engaged"),
         ("F", "WHAT!!! tell me everything"),
         ("O", "{partner} asked {place}. I said yes before the question was even finished lol", "where")],
    ], [
        ("multi", "Where did {O}'s partner of three years propose?", ["date", "where"], "{place}"),
        ("temporal", "When did {O} get engaged?", ["engaged"], "the night before {d1}"),
        ("single", "Who is {O} going to marry?", ["where"], "{partner}"),
    ]),
    Story("allergy", [
        dict(allergen="shellfish", dish="shrimp pasta"),
        dict(allergen="peanuts", dish="pad thai"),
        dict(allergen="gluten", dish="homemade pizza"),
    ], [
        [("F", "Want to come over for dinner Friday? I'm making {dish}"),
         ("O", "I'd love to but I can't have {allergen}, remember? I break out in hives", "allergy"),
         ("F", "omg yes sorry!! I'll make something else")],
    ], [
        ("single", "What is {O} allergic to?", ["allergy"], "{allergen}"),
        ("open", "What should {F} avoid cooking when {O} comes to dinner?", ["allergy"], "anything with {allergen}"),
    ]),
    Story("exam", [
        dict(exam="the bar exam", EXAM="THE BAR"),
        dict(exam="my nursing boards", EXAM="MY BOARDS"),
        dict(exam="the CPA exam", EXAM="THE CPA"),
    ], [
        [("O", "I'm locked in studying for {exam}, send snacks", "study"),
         ("F", "you got this!!")],
        [("O", "I PASSED {EXAM}!!! results came out this morning", "passed"),
         ("F", "AHHH {o}!!! celebration drinks on me")],
    ], [
        ("single", "What test did {O} pass?", ["passed"], "{exam}"),
        ("temporal", "When did {O} get the results?", ["passed"], "the morning of {d1}"),
        ("multi", "What was {O} studying so hard for, and how did it go?", ["study", "passed"], "{exam}; passed"),
    ]),
    Story("bike", [
        dict(bike="a secondhand road bike"), dict(bike="an e-bike"), dict(bike="a bright orange fixie"),
    ], [
        [("O", "I got {bike} so I can ride to work now", "bike"),
         ("F", "ooh how far is it?"),
         ("O", "like 20 minutes along the river, way better than the bus", "dist")],
    ], [
        ("single", "How does {O} get to work these days?", ["bike"], "by bike ({bike})"),
    ]),
    Story("wedding", [
        dict(friend="Hannah", place="a vineyard in Napa"),
        dict(friend="Marco", place="an old barn upstate"),
        dict(friend="Jess", place="a castle in Scotland"),
    ], [
        [("O", "Back from {friend}'s wedding! It was at {place}", "wed"),
         ("F", "how was it?"),
         ("O", "I gave a speech and only cried twice lol", "speech")],
    ], [
        ("single", "Whose wedding did {O} attend?", ["wed"], "{friend}"),
        ("single", "What did {O} do at {friend}'s wedding?", ["speech"], "gave a speech"),
    ]),
    Story("fear", [
        dict(fear="heights", story="we went to the rooftop bar and I couldn't go near the edge",
             activity="skydiving"),
        dict(fear="deep water", story="snorkeling on the boat tour was a hard no for me",
             activity="a scuba diving trip"),
        dict(fear="spiders", story="found a huge one in the shower and slept on the couch",
             activity="camping in a cabin in the woods"),
    ], [
        [("O", "{story}", "fear"),
         ("F", "lol you and {fear}"),
         ("O", "I know, it's been like that since I was a kid", "fear2")],
    ], [
        ("open", "Would {O} likely enjoy {activity}?", ["fear", "fear2"], "no, {sub} is scared of {fear}"),
    ]),
    Story("skill", [
        dict(skill="knit", teacher="My grandma"),
        dict(skill="fish", teacher="My dad"),
        dict(skill="bake bread", teacher="My aunt Rosa"),
    ], [
        [("F", "wait you {skill}?? since when"),
         ("O", "{teacher} taught me when I was like eight", "who")],
    ], [
        ("single", "Who taught {O} to {skill}?", ["who"], "{teacher}"),
    ]),
]

GREETINGS = [
    ("Hey {b}! How's your week going?", "Hi {a}!! Pretty good, busy but good haha"),
    ("Hi {b}!! Long time no talk", "I know right! Missed you {a}"),
    ("Morning {b} ☀️", "Morning!! You're up early"),
    ("Hey hey! What's new {b}?", "Not much, just surviving lol. You?"),
    ("{b}! Do you have a minute?", "Always for you {a}"),
    ("Hiii {b}", "Hey {a}! Perfect timing, I was about to text you"),
    ("Hey {b}, how was your weekend?", "Lazy in the best way haha. Yours?"),
]
CLOSINGS = [
    ("Gotta run, talk soon {b}!", "Bye {a}! 👋"),
    ("ok I need to sleep lol. night {b}!", "Night!! 💤"),
    ("Talk later? Work is calling", "Go go go! Later {a}"),
    ("Love chatting with you {b}", "Same!! Catch up again soon"),
    ("Anyway, I'll let you go", "Thanks for the chat {a}! Take care"),
]
ACKS = [
    "haha yes", "lol", "Wow!", "No way!", "omg", "Aww", "Totally", "omg same", "Love that", "So true",
    "Haha I know right", "That's so cool", "Yay!", "ikr", "Oh nice!", "Hmm interesting", "Right??",
    "hahaha", "That's amazing, {x}!", "Good for you {x}!", "You're the best {x}", "Thanks {x}!",
    "Haha yes {x}", "That sounds so fun, {x}!", "Wow {x}, really?", "Oh {x} 😂", "{x} stop 😂",
    "aw {x} ❤️", "Same here tbh", "Yes!! exactly", "So proud of you", "Ha! Classic",
]
SMALL_TALK = [
    # Everyday chat that brushes the stories' topics: hard negatives for keywords and meaning alike.
    "Wow! Did you see that band on the late show last night?",
    "My neighbor's dog barks at 5am every single day, I'm losing it",
    "Work has been insane this week, so many meetings",
    "I need a vacation so bad lol",
    "Did you watch the game on Sunday?",
    "I keep saying I'll read more and then I just scroll my phone haha",
    "We should go to a concert together sometime!",
    "My knee has been weird since I started running again",
    "I can't cook to save my life, cereal for dinner again",
    "Traffic this morning was a nightmare",
    "My mom keeps asking when I'm visiting lol",
    "I've always wanted to learn an instrument",
    "Have you ever taken a pottery class? Looks so relaxing",
    "It's been raining for like five days straight",
    "I bought way too many plants again haha",
    "Coffee is the only thing keeping me alive today",
    "My cousin just got a puppy and won't stop posting about it",
    "Do you have any show recommendations? I've finished everything",
    "I think I need new running shoes",
    "Our building's elevator broke again, five flights of stairs lol",
    "Weekend plans? I'm thinking of doing absolutely nothing",
    "Ugh my phone screen cracked",
    "I tried yoga this week and I'm so not flexible",
    "The new bakery down the street is dangerous for me",
    "Have you been to that new taco place?",
    "I'm so bad at replying to texts, sorry!",
    "My boss wants us back in the office three days a week now",
    "It's so hot out, I can't deal",
    "I finally cleaned my closet, found so much stuff",
    "Did you hear about the festival in the park next month?",
    "My brother keeps sending me memes at 2am haha",
    "I'm thinking about getting bangs. Bad idea?",
    "My sister is planning her wedding and it's chaos",
    "I want to travel somewhere warm this winter",
    "I started journaling, it's actually nice",
    "Did you get the photos from the party?",
    "I've been sleeping so badly lately",
    "My car is making a weird noise again",
    "What are you doing for your birthday this year?",
    "Gym was packed today, gave up after 20 minutes lol",
    "Honestly just happy it's Friday",
    "I made soup and it was actually good for once",
    "Someone at work brought a dog to the office today 😍",
    "I need to study more but I keep procrastinating",
    "Did you ever finish that book you were reading?",
    "I'm trying to drink more water lol",
]
REPLIES = [
    "haha same", "ugh I feel that", "lol yes", "omg", "Right?? I know", "Haha oh no", "Hmm maybe!",
    "That's so real", "Wait really?", "Honestly same {x}", "lol {x}", "Oh no {x} 😭", "Haha I'm in",
    "Sounds like a plan", "No way, me too",
]


@dataclass
class Turn:
    speaker: str
    text: str
    created_at: str
    session: int
    key: str | None = None  # "story.label" when this turn is evidence


@dataclass
class Question:
    kind: str
    text: str
    evidence: list[str]  # turn keys
    answer: str
    story: str


@dataclass
class Conversation:
    a: Person
    b: Person
    sessions: list[datetime]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def records(self) -> Iterator[dict]:
        """JSON Lines records for memory.transfer.jsonl_import.import_records: one episode per session, turns as
        messages "Speaker: text" with their real dates (A speaks as the user, B as the assistant)."""
        for number, start in enumerate(self.sessions):
            ended = max(t.created_at for t in self.turns if t.session == number)
            yield {"type": "episode", "id": f"s{number}", "title": f"{self.a.name} and {self.b.name}, session "
                   f"{number + 1}", "outcome": "success", "started_at": start.isoformat(), "ended_at": ended}
        for turn in self.turns:
            yield {"type": "message", "episode_id": f"s{turn.session}",
                   "role": "user" if turn.speaker == self.a.name else "assistant",
                   "content": f"{turn.speaker}: {turn.text}", "created_at": turn.created_at}


def _fill(text: str, slots: dict[str, str]) -> str:
    return text.format(**slots)


def generate(seed: int, pair: int, sessions: int = 17) -> Conversation:
    """One conversation between PAIRS[pair], every story told once, by either person."""
    rng = random.Random(seed * 1000 + pair)
    a, b = PAIRS[pair]
    start = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(0, 120))
    dates, day = [], start
    for _ in range(sessions):
        dates.append(day.replace(hour=rng.randint(16, 21), minute=rng.randrange(60)))
        day += timedelta(days=rng.randint(6, 14))
    convo = Conversation(a, b, dates)

    # Place each story's parts: a second part comes 2 to 8 sessions after the first.
    slots_of: dict[str, dict[str, str]] = {}
    placed: dict[int, list[tuple[Story, int]]] = {s: [] for s in range(sessions)}
    for story in rng.sample(STORIES, len(STORIES)):
        owner, friend = (a, b) if rng.random() < 0.5 else (b, a)
        slots = dict(rng.choice(story.variants), O=owner.name, F=friend.name, o=owner.nick, f=friend.nick,
                     sub=owner.sub, obj=owner.obj, pos=owner.pos)
        slots_of[story.name] = slots
        for _ in range(100):
            first = rng.randrange(sessions - (2 if len(story.parts) > 1 else 0))
            chosen = [first] + ([rng.randint(first + 2, min(sessions - 1, first + 8))] if len(story.parts) > 1 else [])
            if all(len(placed[s]) < 3 for s in chosen):
                break
        for index, s in enumerate(chosen):
            placed[s].append((story, index))
        slots.update({f"d{i}": dates[s].strftime("%B %-d, %Y") for i, s in enumerate(chosen)})

    for number, when in enumerate(dates):
        lines: list[tuple[str, str, str | None]] = []  # (speaker, text, key)
        opener, other = (a, b) if rng.random() < 0.6 else (b, a)
        hello, reply = rng.choice(GREETINGS)
        lines += [(opener.name, hello.format(a=opener.nick, b=other.nick), None),
                  (other.name, reply.format(a=opener.nick, b=other.nick), None)]
        for story, index in rng.sample(placed[number], len(placed[number])):
            lines += _small_talk(rng, a, b, rng.randint(1, 3))
            slots = slots_of[story.name]
            people = {"O": slots["O"], "F": slots["F"]}
            for turn in story.parts[index]:
                key = f"{story.name}.{turn[2]}" if len(turn) > 2 else None
                lines.append((people[turn[0]], _fill(turn[1], slots), key))
            if rng.random() < 0.7:
                x = slots["o"] if rng.random() < 0.5 else slots["O"]
                lines.append((slots["F"], rng.choice(ACKS).format(x=x), None))
        lines += _small_talk(rng, a, b, rng.randint(3, 6))
        bye, reply = rng.choice(CLOSINGS)
        closer, other = (a, b) if rng.random() < 0.5 else (b, a)
        lines += [(closer.name, bye.format(a=closer.nick, b=other.nick), None),
                  (other.name, reply.format(a=closer.nick, b=other.nick), None)]
        clock = when
        for speaker, text, key in lines:
            convo.turns.append(Turn(speaker, text, clock.isoformat(), number, key))
            clock += timedelta(seconds=rng.randint(20, 150))

    for story in STORIES:
        slots = slots_of[story.name]
        for kind, text, keys, answer in story.questions:
            convo.questions.append(Question(kind, _fill(text, slots), [f"{story.name}.{k}" for k in keys],
                                            _fill(answer, slots), story.name))
    return convo


def _small_talk(rng: random.Random, a: Person, b: Person, exchanges: int) -> list[tuple[str, str, None]]:
    lines: list[tuple[str, str, None]] = []
    for _ in range(exchanges):
        speaker, other = (a, b) if rng.random() < 0.5 else (b, a)
        x = other.nick if rng.random() < 0.5 else other.name
        if rng.random() < 0.55:
            lines.append((speaker.name, rng.choice(SMALL_TALK), None))
            lines.append((other.name, rng.choice(REPLIES).format(x=speaker.nick), None))
        else:
            lines.append((speaker.name, rng.choice(ACKS).format(x=x), None))
    return lines


def generate_all(seed: int = 12, count: int = 4) -> list[Conversation]:
    return [generate(seed, pair) for pair in range(count)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--show", type=int, default=0, help="which conversation to print")
    ap.add_argument("--jsonl", action="store_true", help="print the import records instead")
    args = ap.parse_args()
    convo = generate(args.seed, args.show)
    if args.jsonl:
        for record in convo.records():
            print(json.dumps(record, ensure_ascii=False))
        return
    for turn in convo.turns:
        mark = f"   <- {turn.key}" if turn.key else ""
        print(f"[{turn.created_at[:16]} s{turn.session + 1}] {turn.speaker}: {turn.text}{mark}")
    print()
    for q in convo.questions:
        print(f"{q.kind:8} {q.text}  -> {q.answer}  {q.evidence}")
    counts = {k: sum(q.kind == k for q in convo.questions) for k in KINDS}
    print(f"\n{len(convo.turns)} turns, {len(convo.sessions)} sessions, {len(convo.questions)} questions {counts}")


if __name__ == "__main__":
    main()
