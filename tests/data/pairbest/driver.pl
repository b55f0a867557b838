#!/usr/bin/perl
# Reads one case as JSON on stdin, pairs it with Algorithm::Pair::Best 1.036, prints the
# kept pairs (ids, in the order pick() returns them) as JSON.
use strict; use warnings;
use JSON::PP;
use Algorithm::Pair::Best;
local $/; my $case = decode_json(<STDIN>);
my $w = $case->{weights};
my $score = sub {
    my ($me, $c) = @_;
    my ($a, $b) = ($me->info, $c->info);
    my $played = grep { $_ eq $b->{id} } @{$a->{opponents}};
    my $s = -$w->{rating} * abs($a->{rating} - $b->{rating});
    $s -= $w->{played} * $played;
    $s -= $w->{wins} * abs($a->{wins} - $b->{wins});
    $s -= $w->{club} if ($a->{club} ne '' and lc($a->{club}) eq lc($b->{club}));
    return $s;
};
my $pair = Algorithm::Pair::Best->new(scoreSubs => [$score]);
$pair->add(@{$case->{players}});
my @p = $pair->pick($case->{window});
print encode_json([ map { [$p[2*$_]->info->{id}, $p[2*$_+1]->info->{id}] } 0 .. $#p/2 ]), "\n";
