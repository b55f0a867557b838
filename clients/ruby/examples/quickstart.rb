require 'goswiss'
require 'json'

URL = ENV.fetch('GOSWISS_URL', 'http://127.0.0.1:9090/')

c = Goswiss::Client.new(URL) # JSON-RPC over HTTP (protocol: :xmlrpc also works)
t = c.tournament_create({ 'name' => 'Autumn Cup', 'rounds' => 2, 'system' => 'mcmahon' })
tid = t['id']
c.use_token(t['director_token']) # writes need it when the daemon has auth on
# Live events: a thread follows the tournament from its first revision. Ruby's standard
# library has no WebSocket, so follow polls tournament.events: every change once, in order.
live = Thread.new do
  follower = Goswiss::Client.new(URL, token: t['director_token']) # the draft round's events too
  seen = results = 0
  follower.follow(tid, since_revision: t['revision']) do |event|
    puts "event #{event['revision']} #{event['kind']} #{event['round']}"
    seen += 1
    results += 1 if event['kind'] == 'result_set'
    break if results == 2 # both games of round 1
  end
  seen
end
[%w[Lee 3d], %w[Kim 1d], %w[Sato 2k], %w[Ito 5k]].each do |name, rank|
  c.tournament_player_add(tid, { 'name' => name, 'first_name' => 'A', 'rank' => rank })
end
games = c.tournament_round_pair(tid, 1)['games']
games.each { |g| c.tournament_result_set(tid, 1, g['table'], 'W+') }
begin
  c.tournament_round_pair(tid, 1)
rescue Goswiss::WrongRound => e # one class per error code, with code, message and data
  puts "refused: #{e.code} #{e.message}"
end
c.tournament_standings(tid)['rows'].each do |row|
  puts "#{row['place']} #{row['name']} #{row['values'].to_json}"
end
puts "live events: #{live.value}"
