# frozen_string_literal: true

# Shared by the tests: the live daemons' URLs (set by tests/it/clients/ruby_client.rs):
# GOSWISS_URL, a daemon with auth off, and GOSWISS_AUTH_URL, one with auth on and
# open_creation (anyone creates and gets the director token; writes need it).

require 'minitest/autorun'
require 'goswiss'

HERE = File.expand_path(__dir__)
PKG = File.expand_path('..', HERE)
# The repository's README and docs (the Rust test runs a copy of the package and says where).
REPO = ENV.fetch('GOSWISS_REPO', File.expand_path('../..', PKG))

module Helpers
  def url
    ENV['GOSWISS_URL'] || skip('GOSWISS_URL is not set: run through `cargo test --test it clients::ruby_client`')
  end

  def auth_url
    ENV['GOSWISS_AUTH_URL'] || skip('GOSWISS_AUTH_URL is not set: run through `cargo test --test it clients::ruby_client`')
  end

  RANKS = %w[5d 3d 1d 1k 3k 5k 8k 12k].freeze

  def players(client, tid, count, prefix = 'P')
    Array.new(count) do |k|
      client.tournament_player_add(tid, { 'name' => "#{prefix}#{k}", 'first_name' => 'T', 'rank' => RANKS[k % RANKS.size] })['player_id']
    end
  end
end
