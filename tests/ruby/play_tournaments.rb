#!/usr/bin/env ruby
# Plays whole tournaments against a goswiss (or rswiss) server with Ruby's xmlrpc/client, the
# client existing rswiss users have, and checks the interface's invariants.
# Usage: ruby play_tournaments.rb URL [SIZES] [TOURNAMENTS_PER_SIZE]
# Exit status 0 when every tournament passed; the last line is "N passed, M failed".
require "xmlrpc/client"
require "uri"

class Violation < StandardError; end

def check(cond, msg)
  raise Violation, msg unless cond
end

def ceil_log2(n)
  n <= 1 ? 0 : (n - 1).bit_length
end

def play(server, players, allow_repeat, seed, rng)
  n = players.size
  tid = server.call("matchmaker.create_tournament", players, 0, allow_repeat, { "seed" => seed })
  check(tid.is_a?(Integer), "tournament id #{tid.inspect}")
  rounds = Hash.new { |h, k| h[k] = [] }
  committed = []
  deadlocked = false
  loop do
    ok, pair = server.call2("matchmaker.checkout_match", tid)
    unless ok
      break if pair.faultCode == 202
      if [204, 205].include?(pair.faultCode)
        deadlocked = true
        break
      end
      raise Violation, "fault #{pair.faultCode}: #{pair.faultString}"
    end
    r = server.call("matchmaker.round", tid)
    rounds[r] << pair
    res = [-1] * 20 + [0] * 50 + [1] * 30
    result = res[rng.rand(100)]
    check(server.call("matchmaker.commit_match", tid, pair, result) == true, "commit answers true")
    committed << [pair[0], pair[1], result]
  end
  byes = Hash.new(0)
  counts = Hash.new(0)
  rounds.each do |r, pairs|
    seen = pairs.flatten
    check(seen.uniq.size == seen.size, "round #{r}: a player plays twice")
    check(pairs.size == n / 2, "round #{r}: #{pairs.size} matches")
    (players - seen).each { |p| byes[p] += 1 }
    pairs.each { |a, b| counts[[a, b].sort] += 1 }
  end
  check(byes.values.all? { |b| b <= 1 }, "at most one bye each")
  repeats = counts.values.count(2)
  check(counts.values.all? { |c| c <= 2 }, "a pair met three times")
  check(repeats.zero?, "repeats without allow_repeat") unless allow_repeat
  check(server.call("matchmaker.repeated_matches", tid) == 2 * repeats, "repeated_matches")
  unless deadlocked
    check(server.call("matchmaker.round", tid) == ceil_log2(n), "number of rounds")
    check(server.call("matchmaker.has_ended", tid) == true, "has_ended")
  end
  score = Hash.new(0.0)
  byes.each { |p, b| score[p] += b }
  committed.each do |a, b, res|
    score[a] += { -1 => 1.0, 0 => 0.5, 1 => 0.0 }[res]
    score[b] += { -1 => 0.0, 0 => 0.5, 1 => 1.0 }[res]
  end
  table = server.call("matchmaker.table_by_criteria", tid)
  check(table.map(&:first).sort == players.sort, "every player in the table")
  table.each do |row|
    check(row.size == 8, "row shape")
    check(row[2] == score[row[0]], "score of #{row[0]}: #{row[2]} vs #{score[row[0]]}")
    check(row[2..6].all? { |x| x.is_a?(Float) }, "scores are doubles")
  end
  keys = table.map { |row| row[2..7] }
  check(keys == keys.sort.reverse, "table sorted")
  unless deadlocked
    ok, w = server.call2("matchmaker.winner", tid)
    if ok
      check(w[0] == table[0][0], "winner heads the table")
    else
      check(w.faultCode == 402, "winner fault #{w.faultCode}")
    end
  end
end

url = URI(ARGV[0] || "http://localhost:9090/")
sizes = (ARGV[1] || "1,2,7,16,33,64").split(",").map(&:to_i)
per = (ARGV[2] || "1").to_i
server = XMLRPC::Client.new(url.host, url.path.empty? ? "/" : url.path, url.port)
server.timeout = 60
rng = Random.new(7)
passed = failed = 0
sizes.each do |size|
  [true, false].each do |allow_repeat|
    per.times do |k|
      players = (100...(100 + size)).to_a
      begin
        play(server, players, allow_repeat, size * 1009 + k * 2 + (allow_repeat ? 1 : 0), rng)
        passed += 1
      rescue Violation, XMLRPC::FaultException => e
        failed += 1
        puts "FAIL size=#{size} allow_repeat=#{allow_repeat}: #{e.message}"
      end
    end
  end
end
puts "#{passed} passed, #{failed} failed"
exit(failed.zero? ? 0 : 1)
