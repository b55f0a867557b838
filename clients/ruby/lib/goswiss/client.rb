# frozen_string_literal: true

require 'json'
require 'net/http'
require 'uri'
require 'xmlrpc/client' # the xmlrpc gem's writer and parser (its client is not used)

module Goswiss
  # The XML-RPC wire as the daemon speaks it, over the xmlrpc gem's writer and parser: nil as
  # `<nil/>` (the daemon answers `<nil/>` only to a client that sent one, so the parser takes
  # it too) and integers beyond 32 bits as `<i8>`, without changing the gem's global Config.
  module XmlWire
    INT32 = (-2**31..2**31 - 1).freeze

    # Writes a methodCall.
    class Writer < XMLRPC::Create
      private

      def conv2value(param)
        return @writer.ele('value', @writer.ele('nil')) if param.nil?
        return @writer.ele('value', @writer.tag('i8', param.to_s)) if param.is_a?(Integer) && !INT32.cover?(param)

        super
      end
    end

    # Reads a methodResponse.
    class Listener < XMLRPC::XMLParser::REXMLStreamParser::StreamListener
      def tag_start(name, attrs = [])
        return super unless name == 'nil'

        @data = nil
        @value = :nil
      end
    end

    # The gem's stream parser with Listener.
    class Parser < XMLRPC::XMLParser::REXMLStreamParser
      def initialize
        super
        @parser_class = Listener
      end
    end
  end

  # The blocking client: JSON-RPC 2.0 over HTTP (default) or XML-RPC (the rswiss wire), one
  # keep-alive connection.
  #
  #   c = Goswiss::Client.new('http://127.0.0.1:9090/')
  #   t = c.tournament_create({ 'name' => 'Autumn Cup', 'rounds' => 4, 'system' => 'mcmahon' })
  #   c.use_token(t['director_token'])
  #
  # Every method of the daemon's `rpc.discover` is a method of the client (generated into
  # Goswiss::Methods: `tournament.player.add` is `tournament_player_add`); #call reaches any
  # other by name. Results are what the server sent, as Hashes with String keys, Arrays and
  # scalars. Errors raise the Goswiss::Fault subclass of their code. One object per thread.
  class Client
    include Methods

    PROTOCOLS = %i[jsonrpc xmlrpc].freeze

    # Errors that, on a reused keep-alive connection, mean the server had closed it as idle
    # when the request went out: the call is sent once more on a new connection. On a fresh
    # connection they are ConnectionLost.
    STALE = [EOFError, Errno::ECONNRESET, Errno::EPIPE, Errno::ECONNABORTED, IOError].freeze

    attr_reader :url, :protocol, :timeout
    attr_accessor :token

    # Opens a client, yields it and closes it.
    def self.open(*args, **kwargs)
      client = new(*args, **kwargs)
      return client unless block_given?

      begin
        yield client
      ensure
        client.close
      end
    end

    # url: the daemon's http:// or https:// URL; protocol: :jsonrpc or :xmlrpc; token: the
    # director or admin token, sent as `Authorization: Bearer`; timeout: seconds per call.
    def initialize(url = 'http://127.0.0.1:9090/', protocol: :jsonrpc, token: nil, timeout: 60)
      @protocol = protocol.to_sym
      raise ArgumentError, "unknown protocol #{protocol.inspect} (:jsonrpc or :xmlrpc)" unless PROTOCOLS.include?(@protocol)

      @uri = URI.parse(url)
      raise ArgumentError, "#{url.inspect}: an http:// or https:// URL" unless @uri.is_a?(URI::HTTP) && @uri.host

      @url = url
      @path = @uri.path.empty? ? '/' : @uri.path
      @token = token
      @timeout = timeout
      @ids = 0
      @http = nil
    end

    # Sends `Authorization: Bearer token` with every later call (nil: no header).
    def use_token(token)
      @token = token
    end

    # Calls any method with positional parameters; returns its result as sent.
    def call(method, *params)
      _call(method.to_s, params)
    end

    # Live events by polling `tournament.events`: yields each stored event after
    # `since_revision` ({"revision", "kind", "round", "event"}), in order, each once, waiting
    # `interval` seconds between polls that bring nothing new. Ends when the block breaks, or
    # (returning the last revision seen) after `idle` seconds without a new event when
    # `idle` is given. Without a block, an Enumerator. Ruby's standard library has no
    # WebSocket, so this is what `tournament.subscribe` is for the Python and TypeScript
    # clients; a deleted tournament ends it with NoSuchTournament. With auth on, a caller
    # without the director token gets an unpublished round's events as `withheld` and is not
    # shown them again once it is published: follow with the token to see them.
    def follow(tournament_id, since_revision: 0, interval: 0.5, idle: nil)
      unless block_given?
        return enum_for(:follow, tournament_id, since_revision: since_revision, interval: interval, idle: idle)
      end

      since = since_revision
      quiet_since = monotonic
      loop do
        page = tournament_events(tournament_id, since)
        events = page['events'] || []
        events.each do |event|
          yield event
          since = event['revision'] if event['revision'].is_a?(Integer) && event['revision'] > since
        end
        since = page['next_since'] if page['more'] && page['next_since'].is_a?(Integer)
        next if page['more']

        if events.empty?
          return since if idle && monotonic - quiet_since >= idle

          sleep interval
        else
          quiet_since = monotonic
        end
      end
    end

    # Closes the connection (the next call opens a new one).
    def close
      @http&.finish if @http&.started?
    rescue IOError
      nil
    ensure
      @http = nil
    end

    private

    def monotonic
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # What every generated method calls: `params` as a positional list, trailing nils
    # (optional parameters not given) dropped.
    def _call(method, params)
      params = params.dup
      params.pop while !params.empty? && params.last.nil?
      if @protocol == :xmlrpc
        xml_call(method, params)
      else
        json_call(method, params)
      end
    end

    def json_call(method, params)
      @ids += 1
      id = @ids
      body = JSON.generate({ 'jsonrpc' => '2.0', 'id' => id, 'method' => method, 'params' => params })
      data = post(method, body, 'application/json')
      reply = begin
        JSON.parse(data)
      rescue JSON::ParserError => e
        raise TransportError, "#{method}: bad JSON reply: #{e.message[0, 200]}"
      end
      raise TransportError, "#{method}: bad JSON-RPC reply: #{data[0, 200].inspect}" unless reply.is_a?(Hash) && reply['id'] == id

      err = reply['error']
      if err.is_a?(Hash)
        code = err['code'].is_a?(Integer) ? err['code'] : 0
        raise Goswiss.fault_for(code, err['message'].to_s, err['data'])
      end
      raise TransportError, "#{method}: reply without result: #{data[0, 200].inspect}" unless reply.key?('result')

      reply['result']
    end

    def xml_call(method, params)
      body = begin
        XmlWire::Writer.new.methodCall(method, *params)
      rescue RuntimeError => e
        # The xmlrpc gem's own refusals: a NaN, an object it cannot send.
        raise ArgumentError, "#{method}: cannot send over XML-RPC: #{e.message}"
      end
      data = post(method, body, 'text/xml')
      ok, value = begin
        XmlWire::Parser.new.parseMethodResponse(data)
      rescue StandardError => e
        raise TransportError, "#{method}: bad XML-RPC reply: #{e.message[0, 200]}"
      end
      return value if ok

      raise Goswiss.fault_for(value.faultCode, value.faultString.to_s) if value.is_a?(XMLRPC::FaultException)

      raise TransportError, "#{method}: bad XML-RPC reply: #{data[0, 200].inspect}"
    end

    def post(method, body, content_type)
      headers = { 'Content-Type' => content_type }
      headers['Authorization'] = "Bearer #{@token}" if @token && !@token.empty?
      2.times do |attempt|
        fresh = @http.nil?
        http = connection(method)
        begin
          response = http.request_post(@path, body, headers)
        rescue *STALE => e
          close
          # Only a reused connection the server had already closed is retried, once.
          raise ConnectionLost, "#{method}: #{e.class}: #{e.message}" if fresh || attempt == 1

          next
        rescue Net::ReadTimeout, Net::WriteTimeout => e
          close
          raise ConnectionLost, "#{method}: no answer within #{@timeout} s (#{e.class})"
        rescue SystemCallError, Net::ProtocolError, OpenSSL::SSL::SSLError => e
          close
          raise ConnectionLost, "#{method}: #{e.class}: #{e.message}"
        end
        unless response.code == '200'
          raise TransportError, "#{method}: HTTP #{response.code}: #{response.body.to_s[0, 200].inspect}"
        end

        return response.body.to_s
      end
      raise TransportError, "#{method}: no answer"
    end

    def connection(method)
      return @http if @http

      http = Net::HTTP.new(@uri.host, @uri.port)
      http.use_ssl = @uri.scheme == 'https'
      http.open_timeout = @timeout
      http.read_timeout = @timeout
      http.write_timeout = @timeout
      http.keep_alive_timeout = 30
      begin
        http.start
      rescue SystemCallError, SocketError, Net::OpenTimeout, OpenSSL::SSL::SSLError, IOError => e
        raise TransportError, "#{method}: cannot connect to #{@uri.host}:#{@uri.port}: #{e.class}: #{e.message}"
      end
      @http = http
    end
  end
end
